import Stripe from 'stripe';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createStripeEmulator, type StripeEmulator } from '../../src/dev/stripe-emulator/emulator.ts';

// The emulator's idempotency as Stripe's (docs.stripe.com/api/idempotent_requests): the first answer
// for a key — a refund, a refusal or a 500 — is replayed; the key with other parameters is an
// idempotency_error, which the real SDK raises as StripeIdempotencyError.

let emulator: StripeEmulator;
let stripe: Stripe;

beforeEach(() => {
  emulator = createStripeEmulator({
    publicUrl: 'http://stripe.invalid',
    webhookUrl: 'http://127.0.0.1:9/none',
    webhookSecret: 'whsec_unit',
    apiKey: 'sk_test_unit',
  });
  emulator.hold();
  stripe = new Stripe('sk_test_unit', {
    host: 'stripe.invalid',
    protocol: 'http',
    maxNetworkRetries: 0,
    httpClient: Stripe.createFetchHttpClient(async (url, init) => emulator.app.fetch(new Request(url, init))),
  });
});
afterEach(() => emulator.close());

async function paid(amount = 3000) {
  const session = await stripe.checkout.sessions.create({
    mode: 'payment',
    success_url: 'http://shop.invalid/ok',
    cancel_url: 'http://shop.invalid/cancel',
    line_items: [{ price_data: { currency: 'jpy', unit_amount: amount, product_data: { name: '講習' } }, quantity: 1 }],
  });
  emulator.pay(session.id);
  return String(emulator.sessions.get(session.id)?.payment_intent);
}
const refundWith = (key: string, params: Stripe.RefundCreateParams) => stripe.refunds.create(params, { idempotencyKey: key });
const caught = (promise: Promise<unknown>) =>
  promise.then(
    () => null,
    (e: unknown) => e as Stripe.errors.StripeError,
  );

describe('the Stripe emulator’s idempotency keys', () => {
  it('replays a refund for its key, and refuses the key with other parameters', async () => {
    const pi = await paid();
    const first = await refundWith('k1', { payment_intent: pi, amount: 1000 });
    const again = await refundWith('k1', { payment_intent: pi, amount: 1000 });
    expect(again.id).toBe(first.id);
    expect(emulator.refunds.size).toBe(1);
    const other = await caught(refundWith('k1', { payment_intent: pi, amount: 500 }));
    expect(other).toBeInstanceOf(Stripe.errors.StripeIdempotencyError);
    expect(emulator.refunds.size).toBe(1);
  });

  it('replays an error for its key even once the payment could be refunded; a new key refunds', async () => {
    const pi = await paid();
    const tooMuch = await caught(refundWith('big', { payment_intent: pi, amount: 5000 }));
    expect(tooMuch).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
    expect(tooMuch?.code).toBe('amount_too_large');
    expect((await caught(refundWith('big', { payment_intent: pi, amount: 5000 })))?.code).toBe('amount_too_large');

    emulator.fail('refunds', { status: 500, type: 'api_error', message: 'An unknown error occurred.' });
    expect(await caught(refundWith('outage', { payment_intent: pi }))).toBeInstanceOf(Stripe.errors.StripeAPIError);
    emulator.fail('refunds', null);
    expect(await caught(refundWith('outage', { payment_intent: pi }))).toBeInstanceOf(Stripe.errors.StripeAPIError);
    expect(emulator.refunds.size).toBe(0);

    const whole = await refundWith('fresh', { payment_intent: pi });
    expect(whole).toMatchObject({ amount: 3000, status: 'succeeded' });
    const refunded = await caught(refundWith('after', { payment_intent: pi }));
    expect(refunded?.code).toBe('charge_already_refunded');
    expect((await caught(refundWith('after', { payment_intent: pi })))?.code).toBe('charge_already_refunded');
    expect(emulator.refunds.size).toBe(1);
  });

  it('does not remember a request that failed validation, nor a key across endpoints', async () => {
    const pi = await paid();
    const bad = await caught(refundWith('v', { payment_intent: pi, reason: 'other' as 'duplicate' }));
    expect(bad?.param).toBe('reason');
    expect(await refundWith('v', { payment_intent: pi, reason: 'duplicate' })).toMatchObject({ status: 'succeeded' });
    const crossed = await caught(stripe.customers.create({ email: 'a@example.jp' }, { idempotencyKey: 'v' }));
    expect(crossed).toBeInstanceOf(Stripe.errors.StripeIdempotencyError);
  });
});
