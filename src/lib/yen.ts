/** An amount in yen as the shop prints it everywhere: `¥16,500`. */
export const yen = (amount: number) => `¥${amount.toLocaleString('ja-JP')}`;
