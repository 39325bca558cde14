import { LockMode } from '@mikro-orm/core';
import type Stripe from 'stripe';
import * as v from 'valibot';
import type { Em, Orm } from '../../db/orm.ts';
import { transact } from '../../events/outbox.ts';
import type { SessionUser } from '../../http/context.ts';
import { AppError, validationError } from '../../http/errors.ts';
import { isAdmin } from '../../http/guards.ts';
import type { Logger } from '../../lib/logger.ts';
import { recordAudit } from '../audit/index.ts';
import { ADDRESSEE_KINDS, type AddresseeKind, SaleReceipt } from './entities/receipt.entity.ts';
import { Sale } from './entities/sale.entity.ts';
import { receiptNumber, renderReceiptPdf } from './receipt-pdf.ts';

const ADDRESSEE_MESSAGE = '宛名は「氏名」か「所属」から選んでください。';

/** PUT /api/sales/{id}/receipt-addressee */
export const AddresseeInput = v.object({
  addressee: v.picklist(ADDRESSEE_KINDS, ADDRESSEE_MESSAGE),
});

const NOT_FOUND = '領収書を発行するご購入が見つかりませんでした。';
const REFUNDED = '返金済みのご購入のため、領収書は発行できません。';
const CHOOSE_FIRST = '領収書の宛名（氏名または所属）を選んでから発行してください。';

/**
 * Names copied before the accounts module refused them may hold line breaks, controls or bidi
 * overrides: a receipt prints them without (a space for a break, nothing for the rest).
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters removed
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;
const printable = (text: string) => text.replace(/[\r\n\t\u2028\u2029]+/g, ' ').replace(UNPRINTABLE, '');

/** The addressees a sale's buyer may choose, as printed: the name with 様, the organisation with 御中. */
export function addresseeOptions(sale: Sale): { value: AddresseeKind; label: string }[] {
  const options: { value: AddresseeKind; label: string }[] = [];
  const name = printable(`${sale.buyerLastName} ${sale.buyerFirstName}`).trim();
  if (name) options.push({ value: 'name', label: `${name} 様` });
  const organisation = printable(sale.buyerAffiliationName).trim();
  if (organisation) options.push({ value: 'organisation', label: `${organisation} 御中` });
  return options;
}

/**
 * The sale whose receipt `user` asks about: 404 when there is none, 403 unless it is their own or they
 * are an administrator, 409 once refunded (a refunded payment gets no receipt).
 */
async function receiptSale(em: Em, user: SessionUser, saleId: number): Promise<Sale> {
  const sale = await em.findOne(Sale, { id: saleId });
  if (!sale) throw new AppError('not_found', NOT_FOUND);
  if (sale.userId !== user.id && !isAdmin(user)) throw new AppError('forbidden');
  if (sale.refundedAt) throw new AppError('conflict', REFUNDED);
  return sale;
}

function receiptDto(sale: Sale, receipt: SaleReceipt | null) {
  const options = addresseeOptions(sale);
  const issued = (receipt?.issueCount ?? 0) > 0;
  return {
    sale_id: sale.id,
    order_number: sale.orderNumber ?? null,
    receipt_number: receiptNumber(sale.id),
    license_name: sale.licenseName,
    issued,
    issue_count: receipt?.issueCount ?? 0,
    addressee_kind: (receipt?.addresseeKind ?? null) as AddresseeKind | null,
    // Once issued, the text printed; before, what the chosen option would print.
    addressee: issued
      ? (receipt?.addressee ?? null)
      : (options.find((option) => option.value === receipt?.addresseeKind)?.label ?? null),
    options,
  };
}

/** GET /api/sales/{id}/receipt-addressee: the choices, the choice made and how often it was issued. */
export async function receiptState(orm: Orm, user: SessionUser, saleId: number) {
  const em = orm.em.fork() as Em;
  const sale = await receiptSale(em, user, saleId);
  return receiptDto(sale, await em.findOne(SaleReceipt, { saleId }));
}

/**
 * Chooses the addressee before the first issue (the member, or an administrator on their behalf).
 * 409 once issued: the addressee of an issued receipt never changes.
 */
export async function chooseAddressee(orm: Orm, user: SessionUser, saleId: number, kind: AddresseeKind) {
  return transact(orm.em as Em, async (tx) => {
    const sale = await receiptSale(tx, user, saleId);
    if (!addresseeOptions(sale).some((option) => option.value === kind)) {
      throw validationError({
        addressee: [
          kind === 'organisation'
            ? '所属名が登録されていないため、所属を宛名にできません。'
            : '氏名が登録されていないため、氏名を宛名にできません。',
        ],
      });
    }
    // The row lock orders this against a concurrent first issue: either the choice lands first, or it sees the issue.
    await tx.execute(
      `insert into sale_receipts (sale_id, addressee_kind, issue_count, created_at, updated_at)
       values (?, ?, 0, now(), now()) on conflict (sale_id) do nothing`,
      [saleId, kind],
    );
    const receipt = await tx.findOneOrFail(SaleReceipt, { saleId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    if (receipt.issueCount > 0) {
      throw new AppError('conflict', `領収書は発行済みのため、宛名（${receipt.addressee}）は変更できません。`);
    }
    receipt.addresseeKind = kind;
    return receiptDto(sale, receipt);
  });
}

/**
 * Stripe's payment method type of the sale's payment (card, konbini), or null when it cannot be
 * learnt quickly: the receipt then leaves the line out and asks again at the next issue.
 */
async function paymentMethodOf(stripe: Stripe, paymentIntentId: string | null, log: Logger): Promise<string | null> {
  if (!paymentIntentId) return null;
  try {
    const intent = await stripe.paymentIntents.retrieve(
      paymentIntentId,
      { expand: ['latest_charge'] },
      { timeout: 3000, maxNetworkRetries: 0 },
    );
    const charge = typeof intent.latest_charge === 'object' ? intent.latest_charge : null;
    const type = charge?.payment_method_details?.type ?? null;
    if (type) return type;
    return intent.payment_method_types.length === 1 ? (intent.payment_method_types[0] ?? null) : null;
  } catch (error) {
    log.warn('receipt: payment method lookup failed', { err: error, paymentIntentId });
    return null;
  }
}

/**
 * Issues the receipt: counts the issue (the first fixes the addressee's text), audits it and renders
 * the PDF in the same transaction, so a receipt that failed to render is not counted.
 */
export async function issueReceipt(
  deps: { orm: Orm; stripe: Stripe; log: Logger },
  user: SessionUser,
  saleId: number,
): Promise<{ pdf: Buffer; receiptNumber: string; issueCount: number }> {
  const em = deps.orm.em.fork() as Em;
  const sale = await receiptSale(em, user, saleId);
  const known = await em.findOne(SaleReceipt, { saleId });
  if (!known) throw new AppError('conflict', CHOOSE_FIRST);
  const method = known.paymentMethod ?? (await paymentMethodOf(deps.stripe, sale.stripePaymentIntentId ?? null, deps.log));
  return transact(deps.orm.em as Em, async (tx) => {
    const receipt = await tx.findOneOrFail(SaleReceipt, { saleId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    const now = new Date();
    if (receipt.issueCount === 0) {
      const chosen = addresseeOptions(sale).find((option) => option.value === receipt.addresseeKind);
      if (!chosen) throw new AppError('conflict', CHOOSE_FIRST);
      receipt.addressee = chosen.label;
      receipt.firstIssuedAt = now;
    }
    receipt.issueCount += 1;
    receipt.lastIssuedAt = now;
    receipt.paymentMethod ??= method;
    const number = receiptNumber(sale.id);
    recordAudit(
      tx,
      { id: user.id, email: user.email },
      {
        action: receipt.issueCount === 1 ? 'sale.receipt' : 'sale.receipt.reissue',
        targetType: 'sale',
        targetId: sale.id,
        before: { issue_count: receipt.issueCount - 1 },
        after: { issue_count: receipt.issueCount, receipt_number: number, addressee: receipt.addressee },
      },
    );
    const pdf = await renderReceiptPdf({
      receiptNumber: number,
      addressee: receipt.addressee ?? '',
      licenseName: sale.licenseName,
      amount: sale.amount,
      paidAt: sale.paidAt,
      issuedAt: now,
      issueCount: receipt.issueCount,
      firstIssuedAt: receipt.firstIssuedAt ?? now,
      paymentMethod: receipt.paymentMethod ?? null,
      saleId: sale.id,
      orderNumber: sale.orderNumber ?? null,
    });
    return { pdf, receiptNumber: number, issueCount: receipt.issueCount };
  });
}
