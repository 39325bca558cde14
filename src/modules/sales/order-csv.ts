import iconv from 'iconv-lite';
import type { Em, Orm } from '../../db/orm.ts';
import { transact } from '../../events/outbox.ts';
import { CP932, contentDisposition, csvHeader, csvLines, replaceUnmappable } from '../../lib/csv.ts';
import { jstStamp } from '../../lib/japan-time.ts';
import type { Logger } from '../../lib/logger.ts';
import { receiptIssuer } from '../../site-settings.ts';
import { combinedAffiliationName } from '../accounts/index.ts';
import { type Actor, recordAudit } from '../audit/index.ts';
import { PAYMENT_METHOD_LABEL, SALE_STATUS_LABEL, type SaleStatus } from './entities/sale.entity.ts';
import { type Booking, type OrderBatch, type OrderRow, orderBatches } from './order-csv-rows.ts';
import { includedTax } from './receipt-pdf.ts';
import type { Period } from './summary.ts';

const COLUMNS = [
  '注文番号',
  '注文日時',
  '支払日時',
  '会員番号',
  '氏名',
  'フリガナ',
  '所属',
  'ライセンス',
  '金額（税込）',
  'うち消費税',
  '税率',
  'お支払い方法',
  '状態',
  '返金日',
  '返金額',
  'Stripe の支払ID',
  '返金のうち消費税',
  '計上区分',
] as const;

type Members = OrderBatch['members'];

const BOOKING_LABEL: Record<Booking, string> = { sale: '売上', refund: '返金のみ' };

/** 一部返金 and 返金済み say more than the fulfilment state; a sale that stands shows that state. */
function stateLabel(row: OrderRow): string {
  if (row.refunded_total >= row.amount) return '返金済み';
  if (row.refunded_total > 0) return '一部返金';
  return SALE_STATUS_LABEL[row.status as SaleStatus] ?? '';
}

/** A `refund` row's 金額 and 消費税 are 0: its sale was counted in the period it was paid. */
function cellsOf(row: OrderRow, booking: Booking, members: Members): string[] {
  const member = row.user_id ? members.get(row.user_id) : undefined;
  // The member as they are now; the purchase-time copy only once the account is gone (decision 0038).
  const person = member ?? {
    lastName: row.buyer_last_name,
    firstName: row.buyer_first_name,
    lastNameKana: null,
    firstNameKana: null,
    affiliation: row.buyer_affiliation,
    affiliationName: row.buyer_affiliation_name,
    affiliationOther: row.buyer_affiliation_other,
  };
  const sold = booking === 'sale' ? row.amount : 0;
  let refundedTax = 0;
  for (const amount of row.refund_amounts ?? []) refundedTax += includedTax(amount);
  return [
    row.order_number ?? '',
    row.ordered ?? '',
    row.paid,
    row.user_id ?? '',
    `${person.lastName} ${person.firstName}`.trim(),
    `${person.lastNameKana ?? ''} ${person.firstNameKana ?? ''}`.trim(),
    combinedAffiliationName(person.affiliation, person.affiliationName, person.affiliationOther),
    row.license_name,
    String(sold),
    String(includedTax(sold)),
    `${receiptIssuer.taxRatePercent}%`,
    PAYMENT_METHOD_LABEL[row.payment_method] ?? row.payment_method,
    stateLabel(row),
    row.refund_day ?? '',
    String(row.refunded),
    row.stripe_payment_intent_id ?? '',
    String(refundedTax),
    BOOKING_LABEL[booking],
  ];
}

const periodName = (period: Period) => `${period.from}_${period.to}`;

/**
 * GET /api/sales/orders.csv: one 売上 row per sale paid in the period (Japan days), oldest first, then
 * one 返金のみ row per sale paid earlier and refunded in it; every row's 返金額 is what was refunded in
 * the period. So each column sums to 売上集計's figure and a closed month's file never changes
 * (decision 0044). Audited before the first byte; batches of rows (order-csv-rows.ts) and their
 * members, one query each, are streamed: memory flat however many rows.
 */
export async function openOrderCsv(orm: Orm, actor: Actor, period: Period, encoding: 'utf-8' | 'shift_jis', log?: Logger) {
  await transact(orm.em as Em, async (tx) => {
    recordAudit(tx, actor, {
      action: 'sale.orders.download',
      targetType: 'sales_summary',
      targetId: `${period.from}〜${period.to}`,
      after: { period: `${period.from}〜${period.to}`, encoding },
    });
  });
  const em = orm.em.fork() as Em;
  const cp932 = encoding === 'shift_jis';
  const encode = (text: string) => (cp932 ? iconv.encode(replaceUnmappable(text), CP932) : Buffer.from(text, 'utf8'));

  async function* chunks(): AsyncGenerator<Buffer> {
    yield encode(csvHeader(COLUMNS, !cp932));
    let written = 0;
    const started = Date.now();
    for (const booking of ['sale', 'refund'] as const) {
      for await (const { rows, members } of orderBatches(em, period, booking)) {
        yield encode(csvLines(rows.map((row) => cellsOf(row, booking, members))));
        written += rows.length;
      }
    }
    log?.info('order csv written', { rows: written, ms: Date.now() - started });
  }

  const name = periodName(period);
  return {
    chunks: chunks(),
    contentType: `text/csv; charset=${cp932 ? 'Shift_JIS' : 'UTF-8'}`,
    disposition: contentDisposition({ utf8: `受注_${name}_${jstStamp(new Date())}.csv`, ascii: `orders_${name}.csv` }),
  };
}
