import { sql } from 'kysely';
import { countAll, db as kysely } from '../../db/kysely.ts';
import type { Em, Orm } from '../../db/orm.ts';
import { japanDay } from '../../lib/japan-time.ts';
import { salesFilter } from './sales-filter.ts';
import { salesCounts } from './sales-list.ts';
import { type Period, salesSummary } from './summary.ts';

const DAY_MS = 86_400_000;
const SERIES_DAYS = 30;

const dayBefore = (day: string, n: number) => new Date(Date.parse(`${day}T00:00:00Z`) - n * DAY_MS).toISOString().slice(0, 10);

/** 売上集計's figures for a period: what the dashboard shows and links to (/admin/sales/summary). */
async function periodFigures(orm: Orm, period: Period) {
  const s = await salesSummary(orm, period);
  return { ...period, count: s.count, amount: s.amount, refunded_count: s.refunded_count, refunded_amount: s.refunded_amount };
}

/** The sales module's part of GET /api/dashboard: today, this month (JST), 30 days by day, and 出力待ち. */
export async function salesDashboard(orm: Orm, now = new Date()) {
  const today = japanDay(now);
  const first = dayBefore(today, SERIES_DAYS - 1);
  const em = orm.em.fork() as Em;
  const day = sql<string>`to_char(s.paid_at at time zone 'Asia/Tokyo', 'YYYY-MM-DD')`;
  const [todays, month, rows, counts] = await Promise.all([
    periodFigures(orm, { from: today, to: today }),
    periodFigures(orm, { from: `${today.slice(0, 8)}01`, to: today }),
    kysely(em)
      .selectFrom('sales as s')
      .select((eb) => [day.as('day'), countAll(eb).as('count'), eb.fn.sum<string>('s.amount').as('amount')])
      .where(salesFilter({ paidFrom: first, paidTo: today }))
      .groupBy(day)
      .execute(),
    salesCounts(orm, {}),
  ]);
  const byDay = new Map(rows.map((r) => [r.day, r]));
  const series = Array.from({ length: SERIES_DAYS }, (_, i) => {
    const date = dayBefore(today, SERIES_DAYS - 1 - i);
    const row = byDay.get(date);
    return { date, count: row?.count ?? 0, amount: Number(row?.amount ?? 0) };
  });
  return { today: todays, month, series, awaiting_export: counts.awaiting };
}
