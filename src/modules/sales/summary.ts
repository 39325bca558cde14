import iconv from 'iconv-lite';
import * as v from 'valibot';
import { countAll, db as kysely } from '../../db/kysely.ts';
import type { Em, Orm } from '../../db/orm.ts';
import { transact } from '../../events/outbox.ts';
import { DATES_REVERSED, datesInOrder, rules } from '../../http/validate.ts';
import { CP932, contentDisposition, csvHeader, csvRecord, replaceUnmappable } from '../../lib/csv.ts';
import { japanDay } from '../../lib/japan-time.ts';
import { type Actor, recordAudit } from '../audit/index.ts';
import { licenseNames } from '../licenses/index.ts';
import { includedTax } from './receipt-pdf.ts';
import { refundsInPeriod } from './refund-amounts.ts';
import { type SalesEb, salesFilter } from './sales-filter.ts';

/** 売上集計: see docs/decisions/0033-sales-summary.md for what each figure counts. */
const MAX_SUMMARY_DAYS = 366;

const day = (label: string) =>
  v.optional(v.union([v.literal(''), rules.date()], `${label}は YYYY-MM-DD の形式の正しい日付で入力してください。`), '');

const DAY_MS = 86_400_000;
const daysBetween = (from: string, to: string) => (Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS + 1;

const periodEntries = { from: day('開始日'), to: day('終了日') };

const notTooLong = (q: { from: string; to: string }) =>
  !q.from || !q.to || q.from > q.to || daysBetween(q.from, q.to) <= MAX_SUMMARY_DAYS;
const TOO_LONG = `集計期間は${MAX_SUMMARY_DAYS}日以内で指定してください。`;

export const SummaryQuery = v.pipe(
  v.object(periodEntries),
  v.forward(
    v.check((q) => datesInOrder(q), DATES_REVERSED),
    ['to'],
  ),
  v.forward(v.check(notTooLong, TOO_LONG), ['to']),
);

export const SummaryEncodingQuery = v.object({
  encoding: v.optional(v.picklist(['utf-8', 'shift_jis'], '文字コードは utf-8 か shift_jis を指定してください。'), 'utf-8'),
});

export interface Period {
  from: string;
  to: string;
}

const lastDayOfMonth = (date: string) => {
  const [year, month] = date.split('-').map(Number) as [number, number];
  return new Date(Date.UTC(year, month, 0)).toISOString().slice(0, 10);
};

export function periodOf(query: { from?: string; to?: string }, now = new Date()): Period {
  if (query.from && query.to) return { from: query.from, to: query.to };
  if (query.from) return { from: query.from, to: lastDayOfMonth(query.from) };
  if (query.to) return { from: `${query.to.slice(0, 8)}01`, to: query.to };
  const today = japanDay(now);
  return { from: `${today.slice(0, 8)}01`, to: lastDayOfMonth(today) };
}

interface LicenseTotals {
  license_id: number;
  name: string;
  count: number;
  amount: number;
  tax: number;
  refunded_count: number;
  refunded_amount: number;
}

export interface SalesSummary {
  from: string;
  to: string;
  count: number;
  amount: number;
  tax: number;
  refunded_count: number;
  refunded_amount: number;
  refunded_tax: number;
  net_amount: number;
  net_tax: number;
  by_license: LicenseTotals[];
}

interface GroupRow {
  license_id: number;
  amount: number;
  n: number;
  name: string;
}

const groupColumns = (eb: SalesEb) =>
  ['s.license_id', 's.amount', countAll(eb).as('n'), eb.fn.max('s.license_name').as('name')] as const;

/** Grouped by licence and price, so each sale's tax is computed by the receipts' own function, once per price. */
export async function salesSummary(orm: Orm, period: Period): Promise<SalesSummary> {
  const em = orm.em.fork() as Em;
  const paid: GroupRow[] = await kysely(em)
    .selectFrom('sales as s')
    .select(groupColumns)
    .where(salesFilter({ paidFrom: period.from, paidTo: period.to }))
    .groupBy(['s.license_id', 's.amount'])
    .execute();
  const refunded: GroupRow[] = await refundsInPeriod(em, period.from, period.to);

  const byLicense = new Map<number, LicenseTotals>();
  const totalsOf = (row: GroupRow) => {
    let totals = byLicense.get(row.license_id);
    if (!totals) {
      totals = {
        license_id: row.license_id,
        name: row.name,
        count: 0,
        amount: 0,
        tax: 0,
        refunded_count: 0,
        refunded_amount: 0,
      };
      byLicense.set(row.license_id, totals);
    }
    return totals;
  };
  const summary: SalesSummary = {
    from: period.from,
    to: period.to,
    count: 0,
    amount: 0,
    tax: 0,
    refunded_count: 0,
    refunded_amount: 0,
    refunded_tax: 0,
    net_amount: 0,
    net_tax: 0,
    by_license: [],
  };
  for (const row of paid) {
    const totals = totalsOf(row);
    const amount = row.amount * row.n;
    const tax = includedTax(row.amount) * row.n;
    totals.count += row.n;
    totals.amount += amount;
    totals.tax += tax;
    summary.count += row.n;
    summary.amount += amount;
    summary.tax += tax;
  }
  for (const row of refunded) {
    const totals = totalsOf(row);
    const amount = row.amount * row.n;
    totals.refunded_count += row.n;
    totals.refunded_amount += amount;
    summary.refunded_count += row.n;
    summary.refunded_amount += amount;
    summary.refunded_tax += includedTax(row.amount) * row.n;
  }
  summary.net_amount = summary.amount - summary.refunded_amount;
  summary.net_tax = summary.tax - summary.refunded_tax;

  // The licence's name now (the licences module); a sale's own copy only for a licence no longer there.
  const names = await licenseNames(em, [...byLicense.keys()]);
  summary.by_license = [...byLicense.values()]
    .map((totals) => ({ ...totals, name: names.get(totals.license_id) ?? totals.name }))
    .sort((a, b) => b.amount - a.amount || b.refunded_amount - a.refunded_amount || a.license_id - b.license_id);
  return summary;
}

const CSV_COLUMNS = [
  '集計開始日',
  '集計終了日',
  'ライセンスID',
  'ライセンス名',
  '件数',
  '売上金額（税込）',
  'うち消費税',
  '返金件数',
  '返金額',
  '純売上',
] as const;

function periodLabel(period: Period): string {
  const wholeMonth =
    period.from.endsWith('-01') && period.to.slice(0, 7) === period.from.slice(0, 7) && period.to === lastDayOfMonth(period.to);
  return wholeMonth ? period.from.slice(0, 7) : `${period.from}_${period.to}`;
}

/** Amounts as plain integers, so a negative 純売上 stays a number. */
function summaryCsv(summary: SalesSummary, bom: boolean): string {
  const row = (text: string[], numbers: number[]) => `${csvRecord(text)},${numbers.join(',')}\r\n`;
  let out = csvHeader(CSV_COLUMNS, bom);
  for (const l of summary.by_license) {
    out += row(
      [summary.from, summary.to, String(l.license_id), l.name],
      [l.count, l.amount, l.tax, l.refunded_count, l.refunded_amount, l.amount - l.refunded_amount],
    );
  }
  out += row(
    [summary.from, summary.to, '', '合計'],
    [summary.count, summary.amount, summary.tax, summary.refunded_count, summary.refunded_amount, summary.net_amount],
  );
  return out;
}

export async function summaryDownload(orm: Orm, actor: Actor, period: Period, encoding: 'utf-8' | 'shift_jis') {
  const summary = await salesSummary(orm, period);
  const cp932 = encoding === 'shift_jis';
  const text = summaryCsv(summary, !cp932);
  const body = cp932 ? iconv.encode(replaceUnmappable(text), CP932) : Buffer.from(text, 'utf8');
  const label = periodLabel(period);
  await transact(orm.em as Em, async (tx) => {
    recordAudit(tx, actor, {
      action: 'sale.summary.download',
      targetType: 'sales_summary',
      targetId: `${period.from}〜${period.to}`,
      after: { period: `${period.from}〜${period.to}`, encoding, rows: summary.by_license.length },
    });
  });
  return {
    body,
    contentType: `text/csv; charset=${cp932 ? 'Shift_JIS' : 'UTF-8'}`,
    disposition: contentDisposition({ utf8: `売上集計_${label}.csv`, ascii: `sales-summary_${label}.csv` }),
  };
}
