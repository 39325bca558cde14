/** Dates and times as the shop shows them: always Japan time, whatever the browser's zone. */
const TOKYO = 'Asia/Tokyo';

const minutes = new Intl.DateTimeFormat('ja-JP', {
  timeZone: TOKYO,
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
});
const seconds = new Intl.DateTimeFormat('ja-JP', {
  timeZone: TOKYO,
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
});
const longDate = new Intl.DateTimeFormat('ja-JP', { timeZone: TOKYO, year: 'numeric', month: 'long', day: 'numeric' });
const monthDayTime = new Intl.DateTimeFormat('ja-JP', {
  timeZone: TOKYO,
  month: 'long',
  day: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
});
/** sv-SE writes dates as YYYY-MM-DD. */
const isoDay = new Intl.DateTimeFormat('sv-SE', { timeZone: TOKYO });

/** 2026/03/10 09:05 */
export const formatDateTime = (iso: string) => minutes.format(new Date(iso));

/** 2026/03/10 09:05:12 */
export const formatDateTimeSeconds = (iso: string) => seconds.format(new Date(iso));

/** 2026年11月25日 */
export const formatLongDate = (iso: string) => longDate.format(new Date(iso));

/** 11月25日 09:05 */
export const formatMonthDayTime = (iso: string) => monthDayTime.format(new Date(iso));

/** Today's date in Japan as YYYY-MM-DD. */
export const japanToday = (now = new Date()) => isoDay.format(now);

/** The month in Japan as YYYY-MM, `back` months before this one. */
export function japanMonth(back = 0, now = new Date()): string {
  const [year, month] = japanToday(now).split('-').map(Number) as [number, number];
  return new Date(Date.UTC(year, month - 1 - back, 1)).toISOString().slice(0, 7);
}

/** 2026/03/10 09:05（日本時間）: where the page does not already say its times are Japan time. */
export const formatJapanTime = (iso: string) => `${formatDateTime(iso)}（日本時間）`;

const monthDay = new Intl.DateTimeFormat('ja-JP', { timeZone: TOKYO, month: 'long', day: 'numeric' });
/** 12月1日 */
export const formatMonthDay = (iso: string) => monthDay.format(new Date(iso));

const localInput = new Intl.DateTimeFormat('sv-SE', {
  timeZone: TOKYO,
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
});
/** 2026-12-01T00:00: an instant as a datetime-local field shows it in Japan time (the server reads it so). */
export const japanLocalInput = (iso: string | null) => (iso ? localInput.format(new Date(iso)).replace(' ', 'T') : '');
