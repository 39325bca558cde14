/** ¥11,000（税込） */
export const formatPrice = (yen: number) => `¥${yen.toLocaleString('ja-JP')}（税込）`;

const dateTime = new Intl.DateTimeFormat('ja-JP', {
  timeZone: 'Asia/Tokyo',
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
});

/** Dates are shown in Japan time. */
export const formatDateTime = (iso: string) => dateTime.format(new Date(iso));
