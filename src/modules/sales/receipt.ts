import { LockMode } from '@mikro-orm/core';
import { now as dbNow, db as kysely } from '../../db/kysely.ts';
import type { Em, Orm } from '../../db/orm.ts';
import { transact } from '../../events/outbox.ts';
import type { PaymentsPort, SessionUser } from '../../http/context.ts';
import { AppError, validationError } from '../../http/errors.ts';
import { may } from '../../http/guards.ts';
import type { Logger } from '../../lib/logger.ts';
import { firstUnprintable } from '../../lib/printable-text.ts';
import { recordAudit } from '../audit/index.ts';
import { type AddresseeKind, DEFAULT_PROVISO, HONORIFICS, type Honorific, SaleReceipt } from './entities/receipt.entity.ts';
import { Sale } from './entities/sale.entity.ts';
import { receiptNumber, renderReceiptPdf } from './receipt-pdf.ts';
import type { AddresseeChoice } from './schemas.ts';

const NOT_FOUND = '領収書を発行するご購入が見つかりませんでした。';
const REFUNDED = '返金済みのご購入のため、領収書は発行できません。';
const CHOOSE_FIRST = '領収書の宛名を選んでから発行してください。';
const ADMIN_READ_ONLY =
  '管理者は会員の領収書の宛名を選べません。領収書は会員ご本人が発行します（管理者は控えのみ表示できます）。';
const BUSY = '領収書の発行が混み合っています。時間をおいて再度お試しください。';
/** How often an issue is rendered again because another issue of the same receipt was recorded first. */
const RECORD_ATTEMPTS = 20;

/**
 * Names copied before the accounts module refused them may hold line breaks, controls, invisible
 * characters or ones the font cannot draw: a receipt prints them without (a space for a break,
 * nothing for the rest).
 */
const asPrinted = (text: string) =>
  [...text.replace(/[\r\n\t\u2028\u2029]+/g, ' ')].filter((character) => firstUnprintable(character) === null).join('');

/** The addressees of the buyer's own details, as printed: the name with 様, the organisation with 御中. */
function addresseeOptions(sale: Sale): { value: Exclude<AddresseeKind, 'custom'>; label: string }[] {
  const options: { value: Exclude<AddresseeKind, 'custom'>; label: string }[] = [];
  const name = asPrinted(`${sale.buyerLastName} ${sale.buyerFirstName}`).trim();
  if (name) options.push({ value: 'name', label: `${name} 様` });
  const organisation = asPrinted(sale.buyerAffiliationName).trim();
  if (organisation) options.push({ value: 'organisation', label: `${organisation} 御中` });
  return options;
}

/** What the chosen addressee prints as (null: nothing usable chosen). */
function chosenLabel(sale: Sale, receipt: SaleReceipt): string | null {
  if (receipt.addresseeKind === 'custom') {
    return receipt.addresseeText && receipt.honorific ? `${receipt.addresseeText} ${receipt.honorific}` : null;
  }
  return addresseeOptions(sale).find((option) => option.value === receipt.addresseeKind)?.label ?? null;
}

/**
 * The sale whose receipt `user` asks about: 404 when there is none, 403 unless it is their own or they
 * are an administrator, 409 once refunded (a refunded payment gets no receipt).
 */
async function receiptSale(em: Em, user: SessionUser, saleId: number): Promise<Sale> {
  const sale = await em.findOne(Sale, { id: saleId });
  if (!sale) throw new AppError('not_found', NOT_FOUND);
  if (sale.userId !== user.id && !may(user, 'sales:read')) throw new AppError('forbidden');
  if (sale.refundedAt) throw new AppError('conflict', REFUNDED);
  return sale;
}

/** An administrator reads another member's sale as a 控え that issues nothing (also their own, with `copy`). */
const readsCopy = (user: SessionUser, sale: Sale, copy = false) => may(user, 'sales:read') && (copy || sale.userId !== user.id);

function receiptDto(sale: Sale, receipt: SaleReceipt | null, copy: boolean, paymentMethod: string | null) {
  const issued = (receipt?.issueCount ?? 0) > 0;
  return {
    sale_id: sale.id,
    order_number: sale.orderNumber ?? null,
    receipt_number: receiptNumber(sale.id),
    license_name: sale.licenseName,
    issued,
    issue_count: receipt?.issueCount ?? 0,
    first_issued_at: receipt?.firstIssuedAt?.toISOString() ?? null,
    addressee_kind: (receipt?.addresseeKind ?? null) as AddresseeKind | null,
    // Once issued, the text printed; before, what the choice would print.
    addressee: issued ? (receipt?.addressee ?? null) : receipt ? chosenLabel(sale, receipt) : null,
    addressee_text: receipt?.addresseeText ?? null,
    honorific: (receipt?.honorific ?? null) as Honorific | null,
    proviso: receipt?.proviso ?? DEFAULT_PROVISO,
    default_proviso: DEFAULT_PROVISO,
    options: addresseeOptions(sale),
    honorifics: HONORIFICS,
    payment_method: paymentMethod,
    // A konbini payment's proof is the store's 払込票控え (受領証); the shop's 領収書 is on request.
    konbini: paymentMethod === 'konbini',
    // An administrator reads a member's receipt: only the uncounted 控え, never the choice or an issue.
    copy_only: copy,
  };
}

/**
 * The payment method type of the sale's payment (card, konbini), asked of checkout, or null when it
 * cannot be learnt quickly: the receipt then leaves the line out and asks again next time.
 */
async function paymentMethodOf(payments: PaymentsPort, paymentIntentId: string | null, log: Logger): Promise<string | null> {
  if (!paymentIntentId) return null;
  try {
    return await payments.readPaymentMethod(paymentIntentId);
  } catch (error) {
    log.warn('receipt: payment method lookup failed', { err: error, paymentIntentId });
    return null;
  }
}

/** The payment method, from the receipt's record or Stripe; kept on the receipt's row once learnt. */
async function knownPaymentMethod(
  deps: { orm: Orm; payments: PaymentsPort; log: Logger },
  sale: Sale,
  receipt: SaleReceipt | null,
): Promise<string | null> {
  if (receipt?.paymentMethod) return receipt.paymentMethod;
  const method = await paymentMethodOf(deps.payments, sale.stripePaymentIntentId ?? null, deps.log);
  if (method && receipt) {
    await kysely(deps.orm.em.fork() as Em)
      .updateTable('sale_receipts')
      .set({ payment_method: method })
      .where('sale_id', '=', sale.id)
      .where('payment_method', 'is', null)
      .execute();
  }
  return method;
}

/** GET /api/sales/{id}/receipt-addressee: the choices, the choice made, how often it was issued, the payment method. */
export async function receiptState(deps: { orm: Orm; payments: PaymentsPort; log: Logger }, user: SessionUser, saleId: number) {
  const em = deps.orm.em.fork() as Em;
  const sale = await receiptSale(em, user, saleId);
  const receipt = await em.findOne(SaleReceipt, { saleId });
  return receiptDto(sale, receipt, readsCopy(user, sale), await knownPaymentMethod(deps, sale, receipt));
}

/**
 * The member chooses the addressee and 但し書き before the first issue. 409 once issued: the
 * addressee of an issued receipt never changes. An administrator may not choose for a member (403):
 * the first issue fixes the addressee for good, so only the member decides it.
 */
export async function chooseAddressee(orm: Orm, user: SessionUser, saleId: number, choice: AddresseeChoice) {
  return transact(orm.em as Em, async (tx) => {
    const sale = await receiptSale(tx, user, saleId);
    if (readsCopy(user, sale)) throw new AppError('forbidden', ADMIN_READ_ONLY);
    if (choice.addressee !== 'custom' && !addresseeOptions(sale).some((option) => option.value === choice.addressee)) {
      throw validationError({
        addressee: [
          choice.addressee === 'organisation'
            ? '所属名が登録されていないため、所属を宛名にできません。'
            : '氏名が登録されていないため、氏名を宛名にできません。',
        ],
      });
    }
    // The row lock orders this against a concurrent first issue: either the choice lands first, or it sees the issue.
    await kysely(tx)
      .insertInto('sale_receipts')
      .values({ sale_id: saleId, addressee_kind: choice.addressee, issue_count: 0, created_at: dbNow(), updated_at: dbNow() })
      .onConflict((oc) => oc.column('sale_id').doNothing())
      .execute();
    const receipt = await tx.findOneOrFail(SaleReceipt, { saleId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    if (receipt.issueCount > 0) {
      throw new AppError('conflict', `領収書は発行済みのため、宛名（${receipt.addressee}）は変更できません。`);
    }
    const custom = choice.addressee === 'custom';
    receipt.addresseeKind = choice.addressee;
    receipt.addresseeText = custom ? (choice.addressee_text ?? null) : null;
    receipt.honorific = custom ? (choice.honorific ?? null) : null;
    receipt.proviso = choice.proviso ?? null;
    return receiptDto(sale, receipt, false, receipt.paymentMethod ?? null);
  });
}

export interface IssuedReceipt {
  pdf: Buffer;
  receiptNumber: string;
  /** The member's issue this PDF is (an administrator's 控え: the member's count, unchanged). */
  issueCount: number;
  copy: boolean;
}

/**
 * GET /api/sales/{id}/receipt: the member's download issues the receipt (later ones say 再発行); an
 * administrator gets the 控え. Rendered outside any transaction as issue `n + 1`, then recorded only
 * while the count is still `n`, else rendered again (docs/decisions/0016-receipt-pdf.md).
 */
export async function issueReceipt(
  deps: { orm: Orm; payments: PaymentsPort; log: Logger },
  user: SessionUser,
  saleId: number,
  options: { copy?: boolean } = {},
): Promise<IssuedReceipt> {
  const em = deps.orm.em.fork() as Em;
  const sale = await receiptSale(em, user, saleId);
  let receipt = await em.findOne(SaleReceipt, { saleId });
  if (readsCopy(user, sale, options.copy)) return readCopy(deps, user, sale, receipt);
  // Only administrators read 控え; a member's download is always their receipt.
  if (options.copy) throw new AppError('forbidden', '領収書の控えは管理者のみ表示できます。');
  if (!receipt) throw new AppError('conflict', CHOOSE_FIRST);
  const method = await knownPaymentMethod(deps, sale, receipt);
  const number = receiptNumber(sale.id);

  for (let attempt = 0; attempt < RECORD_ATTEMPTS; attempt++) {
    const seen = receipt.issueCount;
    const addressee = seen === 0 ? chosenLabel(sale, receipt) : receipt.addressee;
    if (!addressee) throw new AppError('conflict', CHOOSE_FIRST);
    const now = new Date();
    const firstIssuedAt = seen === 0 ? now : (receipt.firstIssuedAt ?? now);
    const pdf = await renderReceiptPdf({
      receiptNumber: number,
      addressee,
      proviso: receipt.proviso ?? DEFAULT_PROVISO,
      licenseName: sale.licenseName,
      amount: sale.amount,
      paidAt: sale.paidAt,
      issuedAt: now,
      issueCount: seen + 1,
      firstIssuedAt,
      paymentMethod: method,
      saleId: sale.id,
      orderNumber: sale.orderNumber ?? null,
    });
    const issue = { seen, now, firstIssuedAt, addressee, method, number };
    const recorded = await recordIssue(deps.orm, user, sale, receipt, issue);
    if (recorded) return { pdf, receiptNumber: number, issueCount: seen + 1, copy: false };
    // Another issue (or a new choice) was recorded meanwhile: read it and render again.
    em.clear();
    receipt = await em.findOne(SaleReceipt, { saleId });
    if (!receipt) throw new AppError('conflict', CHOOSE_FIRST);
  }
  throw new AppError('unavailable', BUSY);
}

/**
 * Records issue `seen + 1` if the receipt is still at `seen` (and, for a first issue, still the
 * choice printed): false when another issue or a new choice came first.
 */
async function recordIssue(
  orm: Orm,
  user: SessionUser,
  sale: Sale,
  chosen: SaleReceipt,
  {
    seen,
    now,
    firstIssuedAt,
    addressee,
    method,
    number,
  }: {
    seen: number;
    now: Date;
    firstIssuedAt: Date;
    addressee: string;
    method: string | null;
    number: string;
  },
): Promise<boolean> {
  const saleId = sale.id;
  return transact(orm.em as Em, async (tx) => {
    const issued = await kysely(tx)
      .updateTable('sale_receipts')
      .set((eb) => ({
        issue_count: eb('issue_count', '+', 1),
        last_issued_at: now,
        first_issued_at: eb.fn.coalesce('first_issued_at', eb.val(firstIssuedAt)),
        addressee: eb.fn.coalesce('addressee', eb.val(addressee)),
        payment_method: eb.fn.coalesce('payment_method', eb.val(method)),
        updated_at: dbNow(),
      }))
      .where('sale_id', '=', saleId)
      .where('issue_count', '=', seen)
      // The first issue only with the addressee the member chose (not one changed since it was read).
      .where((eb) =>
        eb.or([
          eb('issue_count', '>', 0),
          eb.and([
            eb('addressee_kind', '=', chosen.addresseeKind),
            eb('addressee_text', 'is not distinct from', chosen.addresseeText ?? null),
            eb('honorific', 'is not distinct from', chosen.honorific ?? null),
            eb('proviso', 'is not distinct from', chosen.proviso ?? null),
          ]),
        ]),
      )
      .returning('issue_count')
      .executeTakeFirst();
    if (!issued) return false;
    recordAudit(
      tx,
      { id: user.id, email: user.email },
      {
        action: seen === 0 ? 'sale.receipt' : 'sale.receipt.reissue',
        targetType: 'sale',
        targetId: sale.id,
        before: { issue_count: seen },
        after: {
          issue_count: seen + 1,
          receipt_number: number,
          addressee,
          proviso: chosen.proviso ?? DEFAULT_PROVISO,
        },
      },
    );
    return true;
  });
}

/** The 控え's PDF: what was issued (or would be), marked 「控え」, counting nothing. */
export async function renderCopy(sale: Sale, receipt: SaleReceipt | null, method: string | null) {
  const issueCount = receipt?.issueCount ?? 0;
  const addressee = issueCount > 0 ? (receipt?.addressee ?? null) : receipt ? chosenLabel(sale, receipt) : null;
  const number = receiptNumber(sale.id);
  const now = new Date();
  const pdf = await renderReceiptPdf({
    receiptNumber: number,
    addressee: addressee ?? '',
    proviso: receipt?.proviso ?? DEFAULT_PROVISO,
    licenseName: sale.licenseName,
    amount: sale.amount,
    paidAt: sale.paidAt,
    issuedAt: receipt?.lastIssuedAt ?? now,
    issueCount,
    firstIssuedAt: receipt?.firstIssuedAt ?? now,
    paymentMethod: method,
    saleId: sale.id,
    orderNumber: sale.orderNumber ?? null,
    copy: { printedAt: now },
  });
  return { pdf, number, issueCount, addressee };
}

/**
 * An administrator's 控え of a member's receipt: marked 「控え」, with what was issued (or would be),
 * never counted, never fixing the addressee; audited as a read of the member's receipt.
 */
async function readCopy(
  deps: { orm: Orm; payments: PaymentsPort; log: Logger },
  user: SessionUser,
  sale: Sale,
  receipt: SaleReceipt | null,
): Promise<IssuedReceipt> {
  const method = await knownPaymentMethod(deps, sale, receipt);
  const { pdf, number, issueCount, addressee } = await renderCopy(sale, receipt, method);
  await transact(deps.orm.em as Em, async (tx) => {
    recordAudit(
      tx,
      { id: user.id, email: user.email },
      {
        action: 'sale.receipt.copy',
        targetType: 'sale',
        targetId: sale.id,
        after: { issue_count: issueCount, receipt_number: number, addressee },
      },
    );
  });
  return { pdf, receiptNumber: number, issueCount, copy: true };
}
