import { japanMonth } from '../../lib/japan-time';

export interface Period {
  from: string;
  to: string;
}

/** The whole calendar month YYYY-MM. */
export function monthPeriod(month: string): Period {
  const [year, m] = month.split('-').map(Number) as [number, number];
  return { from: `${month}-01`, to: new Date(Date.UTC(year, m, 0)).toISOString().slice(0, 10) };
}
/** The month the period covers exactly, if it is one. */
export function wholeMonth(period: Period): string | null {
  const month = period.from.slice(0, 7);
  const whole = monthPeriod(month);
  return whole.from === period.from && whole.to === period.to ? month : null;
}
export const monthLabel = (month: string) => `${Number(month.slice(0, 4))}年${Number(month.slice(5, 7))}月`;
const dayLabel = (date: string) => `${Number(date.slice(0, 4))}年${Number(date.slice(5, 7))}月${Number(date.slice(8, 10))}日`;
export const periodLabel = (period: Period) => {
  const month = wholeMonth(period);
  return month ? monthLabel(month) : `${dayLabel(period.from)}〜${dayLabel(period.to)}`;
};

/** The period in the URL; without one, this month in Japan (as the API's default). */
export function periodFrom(params: URLSearchParams): Period {
  const from = params.get('from') ?? '';
  const to = params.get('to') ?? '';
  if (!from && !to) return monthPeriod(japanMonth());
  return { from, to };
}
