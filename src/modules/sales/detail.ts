import { db as kysely } from '../../db/kysely.ts';
import type { Em, Orm } from '../../db/orm.ts';
import { AppError } from '../../http/errors.ts';
import { yen } from '../../lib/yen.ts';
import { AFFILIATIONS, findBuyer } from '../accounts/index.ts';
import { auditEntriesOfSale, type SaleAuditEntry } from '../audit/index.ts';
import { mailsAbout } from '../mail/index.ts';
import { saleAuditLabels } from './audit-labels.ts';
import { SaleReceipt } from './entities/receipt.entity.ts';
import { SALE_STATUS_LABEL, Sale, SaleStatus } from './entities/sale.entity.ts';
import { includedTax } from './receipt-pdf.ts';
import { saleDto } from './record-sale.ts';
import { refundSummary, SALE_NOT_FOUND, wasExported } from './refund.ts';

const affiliationLabel = (code: number | null) => (code ? ((AFFILIATIONS as Record<number, string>)[code] ?? '') : '');

const actionLabel = (action: string) => (saleAuditLabels.actions as Record<string, string>)[action] ?? action;

function describesMove(entry: SaleAuditEntry, from: number, to: number): boolean {
  if (entry.action === 'sale.export.batch') return from === SaleStatus.AwaitingExport && to === SaleStatus.InProgress;
  if (!['sale.status', 'sale.revert', 'sale.export.complete'].includes(entry.action)) return false;
  return Number(entry.before?.status) === from && Number(entry.after?.status) === to;
}

/** One transaction: a few milliseconds apart. */
const SAME_CHANGE_MS = 60_000;

interface HistoryItem {
  at: string;
  kind: 'paid' | 'move' | 'audit' | 'refund_requested' | 'refunded';
  label: string;
  from_status: number | null;
  to_status: number | null;
  actor_email: string | null;
  reason: string | null;
}

/** Each refund Stripe confirmed, with its amount. */
async function confirmedRefunds(em: Em, saleId: number): Promise<HistoryItem[]> {
  const rows = await kysely(em)
    .selectFrom('sale_refunds')
    .select(['amount', 'refunded_at'])
    .where('sale_id', '=', saleId)
    .where('refunded_at', 'is not', null)
    .$narrowType<{ refunded_at: string }>()
    .execute();
  return rows.map((refund) => ({
    at: new Date(refund.refunded_at).toISOString(),
    kind: 'refunded',
    label: `返金の確定（Stripe からの通知）：${yen(refund.amount)}`,
    from_status: null,
    to_status: null,
    actor_email: null,
    reason: null,
  }));
}

async function historyOf(em: Em, sale: Sale): Promise<HistoryItem[]> {
  const [moves, entries, refunds] = await Promise.all([
    kysely(em)
      .selectFrom('sale_status_move_sales as ms')
      .innerJoin('sale_status_moves as m', 'm.id', 'ms.move_id')
      .select(['m.from_status', 'm.to_status', 'm.actor_id', 'm.created_at'])
      .where('ms.sale_id', '=', sale.id)
      .orderBy('m.created_at')
      .orderBy('m.id')
      .execute(),
    auditEntriesOfSale(em, sale.id),
    confirmedRefunds(em, sale.id),
  ]);
  const used = new Set<string>();
  const items: HistoryItem[] = [
    {
      at: sale.paidAt.toISOString(),
      kind: 'paid',
      label: 'お支払い（売上の記録）',
      from_status: null,
      to_status: SaleStatus.AwaitingExport,
      actor_email: null,
      reason: null,
    },
  ];
  for (const move of moves) {
    const at = new Date(move.created_at);
    const entry = entries.find(
      (e) =>
        !used.has(e.id) &&
        e.actorId === move.actor_id &&
        describesMove(e, move.from_status, move.to_status) &&
        Math.abs(e.createdAt.getTime() - at.getTime()) < SAME_CHANGE_MS,
    );
    if (entry) used.add(entry.id);
    const fromLabel = SALE_STATUS_LABEL[move.from_status as SaleStatus] ?? String(move.from_status);
    const toLabel = SALE_STATUS_LABEL[move.to_status as SaleStatus] ?? String(move.to_status);
    items.push({
      at: at.toISOString(),
      kind: 'move',
      label: `${entry ? `${actionLabel(entry.action)}：` : ''}${fromLabel} → ${toLabel}`,
      from_status: move.from_status,
      to_status: move.to_status,
      actor_email: entry?.actorEmail ?? null,
      reason: typeof entry?.after?.reason === 'string' ? entry.after.reason : null,
    });
  }
  for (const entry of entries) {
    if (used.has(entry.id)) continue;
    const isMove = ['sale.status', 'sale.revert', 'sale.export.batch', 'sale.export.complete'].includes(entry.action);
    // A move made before moves were recorded is known from its audit entry only.
    const from = isMove && entry.before?.status !== undefined ? Number(entry.before.status) : null;
    const to = isMove && entry.after?.status !== undefined ? Number(entry.after.status) : null;
    items.push({
      at: entry.createdAt.toISOString(),
      kind: entry.action === 'sale.refund' ? 'refund_requested' : isMove ? 'move' : 'audit',
      label:
        from !== null && to !== null
          ? `${actionLabel(entry.action)}：${SALE_STATUS_LABEL[from as SaleStatus] ?? from} → ${SALE_STATUS_LABEL[to as SaleStatus] ?? to}`
          : actionLabel(entry.action),
      from_status: from,
      to_status: to,
      actor_email: entry.actorEmail,
      reason: typeof entry.after?.reason === 'string' ? entry.after.reason : null,
    });
  }
  items.push(...refunds);
  return items.sort(inOrderOfEvents);
}

const RANK: Record<HistoryItem['kind'], number> = { paid: 0, move: 1, audit: 1, refund_requested: 2, refunded: 3 };

/** By time; within one second by what must come first (Stripe's time of a refund is to the second). */
function inOrderOfEvents(a: HistoryItem, b: HistoryItem): number {
  const second = (at: string) => Math.floor(Date.parse(at) / 1000);
  return second(a.at) - second(b.at) || RANK[a.kind] - RANK[b.kind] || a.at.localeCompare(b.at);
}

/** How it was paid is the checkout module's: the host adds it (src/host/order-detail.ts). */
export async function saleDetail(orm: Orm, saleId: number) {
  const em = orm.em.fork() as Em;
  const sale = await em.findOne(Sale, { id: saleId });
  if (!sale) throw new AppError('not_found', SALE_NOT_FOUND);
  const [buyer, receipt, history, mails, exported, refund] = await Promise.all([
    sale.userId ? findBuyer(em, sale.userId) : Promise.resolve(null),
    em.findOne(SaleReceipt, { saleId }),
    historyOf(em, sale),
    mailsAbout(em, [`sale:${sale.id}`, `checkout:${sale.checkoutSessionId}`]),
    wasExported(em, sale),
    refundSummary(em, sale),
  ]);
  return {
    checkoutId: sale.checkoutSessionId,
    sale: {
      ...saleDto(sale),
      tax: includedTax(sale.amount),
      stripe_session_id: sale.stripeSessionId,
      stripe_payment_intent_id: sale.stripePaymentIntentId ?? null,
      exported,
      refund,
      buyer_at_purchase: {
        last_name: sale.buyerLastName,
        first_name: sale.buyerFirstName,
        email: sale.buyerEmail,
        affiliation: sale.buyerAffiliation ?? null,
        affiliation_label: affiliationLabel(sale.buyerAffiliation ?? null),
        affiliation_name: sale.buyerAffiliationName,
        affiliation_other: sale.buyerAffiliationOther ?? null,
      },
      // The member as they are now (null: the account was deleted or withdrew).
      buyer_now: buyer
        ? {
            id: buyer.id,
            last_name: buyer.lastName,
            first_name: buyer.firstName,
            email: buyer.email,
            affiliation: buyer.affiliation,
            affiliation_label: affiliationLabel(buyer.affiliation),
            affiliation_name: buyer.affiliationName,
            affiliation_other: buyer.affiliationOther,
          }
        : null,
      receipt: {
        issue_count: receipt?.issueCount ?? 0,
        first_issued_at: receipt?.firstIssuedAt?.toISOString() ?? null,
        last_issued_at: receipt?.lastIssuedAt?.toISOString() ?? null,
        addressee: receipt?.addressee ?? null,
        proviso: receipt?.proviso ?? null,
      },
      history,
      mails,
    },
  };
}
