import { createHmac } from 'node:crypto';
import Stripe from 'stripe';
import type { Env } from '../../config/env.ts';
import type { PaymentsPort, RefundPaymentOutcome, RefundPaymentRequest } from '../../http/context.ts';

// Only the checkout module holds the Stripe client: its handlers and routes get it here.
declare module '../../http/context.ts' {
  interface ModuleServices {
    stripe: Stripe;
  }
}
declare module '../../jobs/context.ts' {
  interface JobContext {
    stripe: Stripe;
  }
}

export interface Payments extends PaymentsPort {
  stripe: Stripe;
  /** True when the built-in emulator answers at APP_URL (no keys, no STRIPE_API_URL). */
  builtInEmulator: boolean;
}

const EMULATOR_KEY = 'sk_test_emulator';

/**
 * The real `stripe` SDK, pointed at Stripe (keys set), at STRIPE_API_URL (an emulator or stand-in),
 * or — in development without keys — at the built-in emulator served by this app.
 */
export function createPayments(env: Env, authSecret: string): Payments {
  const apiUrl = env.stripe.apiUrl ?? (env.stripe.secretKey ? undefined : env.appUrl);
  const target = apiUrl ? new URL(apiUrl) : undefined;
  const stripe = new Stripe(env.stripe.secretKey ?? EMULATOR_KEY, {
    ...(target
      ? {
          host: target.hostname,
          port: target.port || (target.protocol === 'https:' ? 443 : 80),
          protocol: target.protocol.replace(':', '') as 'http' | 'https',
        }
      : {}),
    maxNetworkRetries: 2,
    timeout: 15_000,
    appInfo: { name: 'license-shop' },
  });
  const webhookSecret =
    env.stripe.webhookSecret ?? `whsec_${createHmac('sha256', authSecret).update('stripe-emulator-webhook').digest('base64url')}`;
  const checkoutOrigin = env.stripe.checkoutOrigin ?? (target ? target.origin : 'https://checkout.stripe.com');
  return {
    stripe,
    webhookSecret,
    checkoutOrigin,
    builtInEmulator: !env.stripe.secretKey && !env.stripe.apiUrl,
    refundPayment: (request) => refundPayment(stripe, request),
    readPaymentMethod: (paymentIntentId) => readPaymentMethod(stripe, paymentIntentId),
  };
}

/** A refund of a PaymentIntent (whole or `amount`); Stripe's errors become outcomes the caller can word. */
async function refundPayment(stripe: Stripe, request: RefundPaymentRequest): Promise<RefundPaymentOutcome> {
  try {
    const refund = await stripe.refunds.create(
      {
        payment_intent: request.paymentIntentId,
        metadata: request.metadata,
        ...(request.amount === undefined ? {} : { amount: request.amount }),
        ...(request.reason === undefined ? {} : { reason: request.reason }),
      },
      { idempotencyKey: request.idempotencyKey },
    );
    return { outcome: 'requested', refundId: refund.id, status: refund.status };
  } catch (error) {
    const code = (error as { code?: string }).code ?? null;
    const message = error instanceof Error ? error.message : String(error);
    if (error instanceof Stripe.errors.StripeIdempotencyError) return { outcome: 'in_progress' };
    if (!(error instanceof Stripe.errors.StripeInvalidRequestError)) return { outcome: 'unavailable', code, message };
    return code === 'charge_already_refunded' ? { outcome: 'already_refunded' } : { outcome: 'refused', code, message };
  }
}

/** How the PaymentIntent was paid: its charge's method, else its only allowed method type. */
async function readPaymentMethod(stripe: Stripe, paymentIntentId: string): Promise<string | null> {
  const intent = await stripe.paymentIntents.retrieve(
    paymentIntentId,
    { expand: ['latest_charge'] },
    { timeout: 3000, maxNetworkRetries: 0 },
  );
  const charge = typeof intent.latest_charge === 'object' ? intent.latest_charge : null;
  const type = charge?.payment_method_details?.type ?? null;
  if (type) return type;
  return intent.payment_method_types.length === 1 ? (intent.payment_method_types[0] ?? null) : null;
}
