import { randomUUID } from 'node:crypto';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type Stripe from 'stripe';
import type { Env } from '../../config/env.ts';
import { db as kysely } from '../../db/kysely.ts';
import type { Em, Orm } from '../../db/orm.ts';
import { transact } from '../../events/outbox.ts';
import { AppError, validationError } from '../../http/errors.ts';
import { setDistribution } from '../accounts/index.ts';
import {
  findLicenseForSale,
  LICENSE_NOT_FOUND,
  noteCheckoutStarted,
  notOnSaleMessage,
  periodState,
  SOLD_OUT_MESSAGE,
} from '../licenses/index.ts';
import { holdingsOf, newOrderNumber, saleOfCheckout, seatsSold } from '../sales/index.ts';
import { bankTransferView } from './bank-transfer.ts';
import { stripeCustomerOf } from './customers.ts';
import { CheckoutSession } from './entities/checkout-session.entity.ts';
import { voucherView } from './konbini.ts';
import { expireSuperseded, keepSession, lockMemberLicense, supersedeOpenCheckouts } from './one-session.ts';

/** The licence's price as stored, never the client's. */
export async function startCheckout(
  orm: Orm,
  env: Env,
  stripe: Stripe,
  buyer: { id: string; email: string },
  input: { licenseId: number; distribution: boolean },
): Promise<{ url: string }> {
  const em = orm.em.fork() as Em;
  const { expiresAt, holdUntil } = holdTimes();
  const { checkoutId, orderNumber, license, superseded } = await openCheckout(em, buyer.id, input, holdUntil);
  let session: Stripe.Checkout.Session;
  try {
    // The member's previous session for this licence can no longer be paid before this one exists.
    await expireSuperseded(em, stripe, superseded);
    const customer = await stripeCustomerOf(em, stripe, buyer);
    session = await stripe.checkout.sessions.create(
      {
        mode: 'payment',
        line_items: [
          { quantity: 1, price_data: { currency: 'jpy', unit_amount: license.price, product_data: { name: license.name } } },
        ],
        client_reference_id: buyer.id,
        customer,
        // 銀行振込 through the customer's balance: Stripe gives a virtual account (decision 0046).
        allowed_payment_method_types: ['card', 'konbini', 'customer_balance'],
        payment_method_options: {
          customer_balance: { funding_type: 'bank_transfer', bank_transfer: { type: 'jp_bank_transfer' } },
        },
        metadata: { checkoutId, orderNumber, userId: buyer.id, licenseId: String(license.id) },
        locale: 'ja',
        expires_at: Math.floor(expiresAt.getTime() / 1000),
        success_url: `${env.appUrl}/licenses/${license.id}/complete?session_id={CHECKOUT_SESSION_ID}`,
        cancel_url: `${env.appUrl}/licenses/${license.id}/procedure?canceled=1`,
      },
      { idempotencyKey: `checkout-${checkoutId}` },
    );
  } catch (error) {
    await kysely(em)
      .updateTable('checkout_sessions')
      .set({ state: 'failed', flag_reason: String(error) })
      .where('id', '=', checkoutId)
      .execute();
    if (error instanceof AppError) throw error;
    throw new AppError('unavailable', '決済ページを準備できませんでした。時間をおいて再度お試しください。');
  }
  await keepSession(em, stripe, checkoutId, session.id);
  if (!session.url) throw new AppError('unavailable', '決済ページを準備できませんでした。時間をおいて再度お試しください。');
  return { url: session.url };
}

async function refuseOutsideTerms(
  tx: Em,
  userId: string,
  license: NonNullable<Awaited<ReturnType<typeof findLicenseForSale>>>,
): Promise<void> {
  const at = new Date();
  if (periodState(license, at) !== 'on_sale') {
    throw new AppError('conflict', notOnSaleMessage(license, at), { details: { code: 'not_on_sale' } });
  }
  if (license.capacity === null) return;
  const taken = await seatsTaken(tx, [license.id], { exceptOpenOf: userId });
  if ((taken.get(license.id) ?? 0) >= license.capacity) {
    throw new AppError('conflict', SOLD_OUT_MESSAGE, { details: { code: 'sold_out' } });
  }
}

/** A new order number is drawn this many times at most (a clash is one in a billion a month). */
const ORDER_NUMBER_ATTEMPTS = 5;

/** Our checkout, with its order number from this moment on (decision 0046); a clashing number is drawn again. */
async function openCheckout(em: Em, userId: string, input: { licenseId: number; distribution: boolean }, holdUntil: Date) {
  for (let attempt = 1; ; attempt++) {
    const checkoutId = randomUUID();
    const orderNumber = newOrderNumber(new Date());
    try {
      const opened = await transact(em, async (tx) => {
        // Locked: purchases of one licence count its seats one after another (decision 0047).
        const license = await findLicenseForSale(tx, input.licenseId, { lock: true });
        if (!license) throw new AppError('not_found', LICENSE_NOT_FOUND);
        if (!license.published) throw validationError({ licenseId: ['このライセンスは現在販売していません。'] });
        await refuseSecondPurchase(tx, userId, license.id);
        const superseded = await supersedeOpenCheckouts(tx, userId, license.id);
        await refuseOutsideTerms(tx, userId, license);
        tx.create(CheckoutSession, {
          holdUntil,
          id: checkoutId,
          userId,
          licenseId: license.id,
          amount: license.price,
          currency: 'jpy',
          state: 'open',
          distribution: input.distribution,
          orderNumber,
          createdAt: new Date(),
          updatedAt: new Date(),
        });
        // The purchase screen's opt-in is the member's current choice.
        await setDistribution(tx, userId, input.distribution);
        await noteCheckoutStarted(tx, license.id);
        return { license, superseded };
      });
      return { checkoutId, orderNumber, ...opened };
    } catch (error) {
      const clash =
        error instanceof UniqueConstraintViolationException && error.message.includes('checkout_sessions_order_number_unique');
      if (!clash || attempt >= ORDER_NUMBER_ATTEMPTS) throw error;
      em.clear();
    }
  }
}

const ALREADY_PURCHASED = 'このライセンスは購入済みです。';
const TRANSFER_PENDING =
  'このライセンスは銀行振込でのお支払いをお待ちしています。お振込先に沿って、期限までにお振り込みください。';
const PAYMENT_PENDING =
  'このライセンスはコンビニでのお支払いをお待ちしています。お支払い番号（払込票）に沿って、期限までにお支払いください。';

/** Under a lock on (member, licence), so two requests at once cannot both pass. */
async function refuseSecondPurchase(tx: Em, userId: string, licenseId: number): Promise<void> {
  await lockMemberLicense(tx, userId, licenseId);
  const [held] = await holdingsOf(tx, userId, licenseId);
  if (held) throw new AppError('conflict', ALREADY_PURCHASED, { details: { code: 'already_purchased' } });
  const pending = await tx.find(
    CheckoutSession,
    { userId, licenseId, state: { $in: ['complete', 'awaiting_payment'] } },
    { orderBy: { createdAt: 'desc' } },
  );
  for (const checkout of pending) {
    // Paid a moment ago: the sale is being recorded (a refunded one has its sale, counted above).
    if (checkout.state === 'complete' && !(await saleOfCheckout(tx, checkout.id))) {
      throw new AppError('conflict', ALREADY_PURCHASED, { details: { code: 'already_purchased' } });
    }
    // Awaiting a konbini payment or bank transfer (its details may still be on their way) until the deadline.
    const deadline = checkout.konbiniExpiresAt ?? checkout.bankTransferExpiresAt;
    if (checkout.state === 'awaiting_payment' && (deadline?.getTime() ?? Number.POSITIVE_INFINITY) > Date.now()) {
      const voucher = voucherView(checkout);
      throw new AppError('conflict', checkout.bankTransferExpiresAt ? TRANSFER_PENDING : PAYMENT_PENDING, {
        details: {
          code: 'payment_pending',
          voucher_url: voucher?.url ?? null,
          expires_at: deadline?.toISOString() ?? null,
          history_url: `/users/${userId}`,
          order_url: checkout.orderNumber ? `/users/${userId}/orders/${checkout.orderNumber}` : null,
        },
      });
    }
  }
}

export async function checkoutStatus(orm: Orm, userId: string, stripeSessionId: string) {
  const em = orm.em.fork() as Em;
  const checkout = await em.findOne(CheckoutSession, { stripeSessionId, userId });
  if (!checkout) throw new AppError('not_found', 'お支払いの記録が見つかりませんでした。');
  const sale = await saleOfCheckout(em, checkout.id);
  return {
    state: checkout.state,
    license_id: checkout.licenseId,
    // What the member pays (総額表示: tax included), shown with a pending konbini payment's deadline.
    amount: checkout.amount,
    currency: checkout.currency,
    sale_id: sale?.id ?? null,
    order_number: checkout.orderNumber ?? sale?.orderNumber ?? null,
    // A konbini payment awaiting the buyer: the numbers, the voucher page and the deadline.
    konbini:
      checkout.state === 'awaiting_payment' && (checkout.konbiniExpiresAt?.getTime() ?? 0) > Date.now()
        ? voucherView(checkout)
        : null,
    // A bank transfer awaited: the customer's virtual account, the amount and the deadline.
    bank_transfer:
      checkout.state === 'awaiting_payment' && (checkout.bankTransferExpiresAt?.getTime() ?? 0) > Date.now()
        ? bankTransferView(checkout)
        : null,
  };
}

export async function forgetUser(em: Em, userId: string): Promise<'done' | 'skipped'> {
  const fork = em.fork();
  const changed = await fork.nativeUpdate(CheckoutSession, { userId }, { userId: null, updatedAt: new Date() });
  const customers = await kysely(fork).deleteFrom('checkout_customers').where('user_id', '=', userId).executeTakeFirst();
  return changed || customers.numDeletedRows ? 'done' : 'skipped';
}

const CARD_SESSION_MINUTES = 31;
/** For a payment at a session's last second whose webhook is late. */
const WEBHOOK_GRACE_MS = 5 * 60_000;
const LEGACY_HOLD_MS = 24 * 3600_000;

function holdTimes(at = new Date()) {
  const expiresAt = new Date(at.getTime() + CARD_SESSION_MINUTES * 60_000);
  return { expiresAt, holdUntil: new Date(expiresAt.getTime() + WEBHOOK_GRACE_MS) };
}

/** Standing sales plus checkouts open, awaiting payment, or paid and not yet a sale (decision 0047). */
export async function seatsTaken(
  em: Em,
  licenseIds: number[],
  options: { exceptOpenOf?: string; exceptCheckout?: string } = {},
): Promise<Map<number, number>> {
  if (!licenseIds.length) return new Map();
  const at = new Date();
  const now = at.toISOString();
  const legacy = new Date(at.getTime() - LEGACY_HOLD_MS).toISOString();
  const holding = await kysely(em)
    .selectFrom('checkout_sessions')
    .select(['id', 'license_id', 'state'])
    .where('license_id', 'in', licenseIds)
    .$if(Boolean(options.exceptCheckout), (q) => q.where('id', '!=', options.exceptCheckout as string))
    .where((eb) =>
      eb.or([
        eb.and([
          eb('state', '=', 'open'),
          eb.or([eb('hold_until', '>', now), eb.and([eb('hold_until', 'is', null), eb('created_at', '>', legacy)])]),
          ...(options.exceptOpenOf ? [eb('user_id', 'is distinct from', options.exceptOpenOf)] : []),
        ]),
        // Until its deadline, swept or not; with none recorded yet (details on their way), until it lapses.
        eb.and([
          eb('state', '=', 'awaiting_payment'),
          eb.or([
            eb('konbini_expires_at', '>', now),
            eb('bank_transfer_expires_at', '>', now),
            eb.and([eb('konbini_expires_at', 'is', null), eb('bank_transfer_expires_at', 'is', null)]),
          ]),
        ]),
        eb('state', '=', 'complete'),
      ]),
    )
    .execute();
  const paid = holding.filter((row) => row.state === 'complete').map((row) => row.id);
  const { sold, recorded } = await seatsSold(em, licenseIds, paid);
  const taken = new Map(sold);
  for (const row of holding) {
    if (row.state === 'complete' && recorded.has(row.id)) continue;
    taken.set(row.license_id, (taken.get(row.license_id) ?? 0) + 1);
  }
  return taken;
}
