import iconv from 'iconv-lite';
import { japanTimeText, db as kysely } from '../../db/kysely.ts';
import type { Em, Orm } from '../../db/orm.ts';
import { transact } from '../../events/outbox.ts';
import { CP932, contentDisposition, csvHeader, csvLines, replaceUnmappable } from '../../lib/csv.ts';
import { jstStamp } from '../../lib/japan-time.ts';
import type { Logger } from '../../lib/logger.ts';
import { receiptIssuer } from '../../site-settings.ts';
import { combinedAffiliationName, currentBuyers } from '../accounts/index.ts';
import { type Actor, recordAudit } from '../audit/index.ts';
import { PAYMENT_METHOD_LABEL, SALE_STATUS_LABEL, type SaleStatus } from './entities/sale.entity.ts';
import { includedTax } from './receipt-pdf.ts';
import { refundsByPeriodEnd } from './refund-amounts.ts';
import { salesFilter } from './sales-filter.ts';
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
] as const;

const BATCH = 5_000;

interface OrderRow {
  id: number;
  order_number: string | null;
  ordered_at: string | null;
  paid_at: string;
  ordered: string | null;
  paid: string;
  user_id: string | null;
  buyer_last_name: string;
  buyer_first_name: string;
  buyer_affiliation: number | null;
  buyer_affiliation_name: string;
  buyer_affiliation_other: string | null;
  license_name: string;
  amount: number;
  payment_method: string;
  status: number;
  stripe_payment_intent_id: string | null;
}

type Refunds = Awaited<ReturnType<typeof refundsByPeriodEnd>>;
type Members = Awaited<ReturnType<typeof currentBuyers>>;

/** 一部返金 and 返金済み say more than the fulfilment state; a sale that stands shows that state. */
function stateLabel(row: OrderRow, refunded: number): string {
  if (refunded >= row.amount) return '返金済み';
  if (refunded > 0) return '一部返金';
  return SALE_STATUS_LABEL[row.status as SaleStatus] ?? '';
}

function cellsOf(row: OrderRow, members: Members, refunds: Refunds): string[] {
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
  const refund = refunds.get(row.id);
  const refunded = refund?.amount ?? 0;
  return [
    row.order_number ?? '',
    row.ordered ?? '',
    row.paid,
    row.user_id ?? '',
    `${person.lastName} ${person.firstName}`.trim(),
    `${person.lastNameKana ?? ''} ${person.firstNameKana ?? ''}`.trim(),
    combinedAffiliationName(person.affiliation, person.affiliationName, person.affiliationOther),
    row.license_name,
    String(row.amount),
    String(includedTax(row.amount)),
    `${receiptIssuer.taxRatePercent}%`,
    PAYMENT_METHOD_LABEL[row.payment_method] ?? row.payment_method,
    stateLabel(row, refunded),
    refund ? refund.last.slice(0, 10) : '',
    String(refunded),
    row.stripe_payment_intent_id ?? '',
  ];
}

const periodName = (period: Period) => `${period.from}_${period.to}`;

/**
 * GET /api/sales/orders.csv: one row per sale paid in the period (Japan days), oldest first, with the
 * refunds made by the period's end — so a closed month's file does not change, like 売上集計's
 * figures (decision 0044). Audited before the first byte; read by a keyset walk of sales_paid_at_index
 * in batches of BATCH and streamed, memory flat however many rows.
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
    let after: { at: string; id: number } | null = null;
    let written = 0;
    const started = Date.now();
    for (;;) {
      const from = after;
      const rows: OrderRow[] = await kysely(em)
        .selectFrom('sales as s')
        .select([
          's.id',
          's.order_number',
          's.ordered_at',
          's.paid_at',
          's.user_id',
          's.buyer_last_name',
          's.buyer_first_name',
          's.buyer_affiliation',
          's.buyer_affiliation_name',
          's.buyer_affiliation_other',
          's.license_name',
          's.amount',
          's.payment_method',
          's.status',
          's.stripe_payment_intent_id',
          (eb) => japanTimeText(eb.ref('s.ordered_at')).$castTo<string | null>().as('ordered'),
          (eb) => japanTimeText(eb.ref('s.paid_at')).as('paid'),
        ])
        .where(salesFilter({ paidFrom: period.from, paidTo: period.to }))
        .$if(from !== null, (q) =>
          q.where((eb) => eb(eb.refTuple('s.paid_at', 's.id'), '>', eb.tuple(from?.at as string, from?.id as number))),
        )
        .orderBy('s.paid_at')
        .orderBy('s.id')
        .limit(BATCH)
        .execute();
      if (rows.length === 0) break;
      const ids = rows.map((row) => row.id);
      const members = await currentBuyers(
        em,
        rows.flatMap((row) => (row.user_id ? [row.user_id] : [])),
      );
      const refunds = await refundsByPeriodEnd(em, ids, period.to);
      yield encode(csvLines(rows.map((row) => cellsOf(row, members, refunds))));
      written += rows.length;
      const last = rows[rows.length - 1] as OrderRow;
      after = { at: last.paid_at, id: last.id };
      if (rows.length < BATCH) break;
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
