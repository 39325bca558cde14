import { createHmac } from 'node:crypto';
import Stripe from 'stripe';
import type { Env } from '../../config/env.ts';

export interface Payments {
  stripe: Stripe;
  webhookSecret: string;
  /** The only origin the checkout redirect route forwards to. */
  checkoutOrigin: string;
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
  return { stripe, webhookSecret, checkoutOrigin, builtInEmulator: !env.stripe.secretKey && !env.stripe.apiUrl };
}
