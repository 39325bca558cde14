/**
 * Japan time, the one clock the shop shows people (mails, PDFs, CSVs, file names, order numbers,
 * periods): every server-side date or time written in Japan time comes from here.
 */
export const JAPAN_TIME_ZONE = 'Asia/Tokyo';

/** UTC+9 all year (no daylight saving since 1951): for the export's per-row date writer, which makes no Date. */
export const JST_OFFSET_SECONDS = 9 * 3600;

const format = (locale: string, options: Intl.DateTimeFormatOptions) =>
  new Intl.DateTimeFormat(locale, { timeZone: JAPAN_TIME_ZONE, ...options });

const isoDay = format('sv-SE', { year: 'numeric', month: '2-digit', day: '2-digit' });
const isoMinute = format('sv-SE', { year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit' });
const yearMonth = format('en-US', { year: '2-digit', month: '2-digit' });
const longDate = format('ja-JP', { year: 'numeric', month: 'long', day: 'numeric' });
const deadline = format('ja-JP', {
  year: 'numeric',
  month: 'long',
  day: 'numeric',
  weekday: 'short',
  hour: '2-digit',
  minute: '2-digit',
});
const slashed = format('ja-JP', {
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  hour12: false,
});
const mailTime = format('ja-JP', {
  year: 'numeric',
  month: 'numeric',
  day: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  hourCycle: 'h23',
});

const partsOf = (formatter: Intl.DateTimeFormat, at: Date) =>
  Object.fromEntries(formatter.formatToParts(at).map((part) => [part.type, part.value]));

/** 2026-11-25: the Japan date (periods, nightly job slots). */
export const japanDay = (at: Date): string => isoDay.format(at);

/** 2611: the year and month in Japan (order numbers). */
export function japanYearMonth(at: Date): string {
  const parts = partsOf(yearMonth, at);
  return `${parts.year}${parts.month}`;
}

/** 2026年11月25日 (receipts). */
export const japanDate = (at: Date): string => longDate.format(at);

/** 2026年11月25日(水) 23:59 (payment deadlines). */
export const japanDeadline = (at: Date): string => deadline.format(at);

/** 2026/11/25 21:03:00 (CSV cells). */
export const japanDateTime = (at: Date | string): string => slashed.format(new Date(at));

/** 2026年11月25日 21:03（日本時間）: every time a mail states is Japan time, and says so. */
export function japanTime(at: Date | string): string {
  const parts = partsOf(mailTime, new Date(at));
  return `${parts.year}年${parts.month}月${parts.day}日 ${parts.hour}:${parts.minute}（日本時間）`;
}

/** 20261122-1530 (file names). */
export const jstStamp = (at: Date): string => isoMinute.format(at).replace(/[-:]/g, '').replace(' ', '-');

const monthDayTime = format('ja-JP', { month: 'long', day: 'numeric', hour: 'numeric', minute: '2-digit', hourCycle: 'h23' });

/** 12月1日 0:00 (sale periods in messages). */
export const japanMonthDayTime = (at: Date): string => monthDayTime.format(at);

const LOCAL = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2}))?$/;

/** `2026-12-01T00:00` as Japan time, or ISO with an offset; null otherwise (2月30日 too). */
export function parseJapanTime(text: string): Date | null {
  const local = LOCAL.exec(text);
  if (!local) {
    if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(text)) return null;
    const at = new Date(text);
    return Number.isNaN(at.getTime()) ? null : at;
  }
  const [year, month, day, hour, minute, second] = local.slice(1).map((part) => Number(part ?? 0)) as number[];
  const wall = new Date(Date.UTC(year as number, (month as number) - 1, day, hour, minute, second));
  if (wall.getUTCDate() !== day || wall.getUTCHours() !== hour || wall.getUTCMinutes() !== minute) return null;
  return new Date(wall.getTime() - JST_OFFSET_SECONDS * 1000);
}

/** 23:59:59 Japan time on the `days`-th day after `from`'s Japan day (a bank transfer's deadline). */
export function japanEndOfDayAfter(from: Date, days: number): Date {
  const day = 86_400_000;
  const startOfJapanDay = Math.floor((from.getTime() + JST_OFFSET_SECONDS * 1000) / day) * day - JST_OFFSET_SECONDS * 1000;
  return new Date(startOfJapanDay + (days + 1) * day - 1000);
}
