/** ¥11,000（税込） */
export const formatPrice = (yen: number) => `¥${yen.toLocaleString('ja-JP')}（税込）`;
