import { serve } from '@hono/node-server';
import { createStripeEmulator } from '../../src/dev/stripe-emulator/emulator.ts';
import type { TestClient } from './http-client.ts';
import { freePort } from './ports.ts';
import type { TestRuntimeOptions } from './runtime.ts';
import { startTestServer } from './server.ts';
import { eventually } from './wait.ts';

export const TEST_STRIPE_KEY = 'sk_test_shop_tests';
export const TEST_WEBHOOK_SECRET = 'whsec_shop_tests_secret';

/**
 * The shop (API, SPA, workers) and the project's Stripe emulator on two local ports, the app's real
 * `stripe` SDK pointed at the emulator through STRIPE_API_URL, as a deployment would point it at Stripe.
 */
export async function startShopWithStripe(options: TestRuntimeOptions = {}) {
  const [appPort, stripePort] = [await freePort(), await freePort()];
  const stripeUrl = `http://127.0.0.1:${stripePort}`;
  const emulator = createStripeEmulator({
    publicUrl: stripeUrl,
    webhookUrl: `http://127.0.0.1:${appPort}/api/stripe/webhook`,
    webhookSecret: TEST_WEBHOOK_SECRET,
    retry: { attempts: 4, delayMs: 150 },
    apiKey: TEST_STRIPE_KEY,
  });
  const stripeServer = serve({ fetch: emulator.app.fetch, port: stripePort, hostname: '127.0.0.1' });
  const shop = await startTestServer({
    ...options,
    port: appPort,
    env: {
      STRIPE_SECRET_KEY: TEST_STRIPE_KEY,
      STRIPE_WEBHOOK_SECRET: TEST_WEBHOOK_SECRET,
      STRIPE_API_URL: stripeUrl,
      ...options.env,
    },
  });
  return {
    ...shop,
    emulator,
    stripeUrl,
    async stop() {
      emulator.close();
      await new Promise<void>((done) => {
        stripeServer.close(() => done());
        (stripeServer as import('node:http').Server).closeAllConnections?.();
      });
      await shop.stop();
    },
  };
}
export type ShopWithStripe = Awaited<ReturnType<typeof startShopWithStripe>>;

/** Buys a licence as a real member would (checkout, payment at the emulator, webhook, worker) and waits for the sale. */
export async function buyThroughStripe(
  shop: ShopWithStripe,
  client: TestClient,
  licenseId: number,
  method: 'card' | 'konbini' = 'card',
) {
  const res = await client.post('/api/licenses/stripe', { licenseId, distribution: true });
  if (res.status !== 200) throw new Error(`checkout refused: ${res.status} ${await res.text()}`);
  const sessionId = new URL((await res.json()).url).pathname.split('/').pop() as string;
  const status = async () => (await (await client.get(`/api/checkout/sessions/${sessionId}`)).json()) as CheckoutStatus;
  shop.emulator.pay(sessionId, method);
  if (method === 'konbini') {
    await eventually(async () => (await status()).konbini, 15_000, 'the voucher');
    shop.emulator.settleKonbini(sessionId, true);
  }
  const sold = await eventually(
    async () => {
      const s = await status();
      return s.sale_id ? s : null;
    },
    15_000,
    'the sale',
  );
  const paymentIntent = String(shop.emulator.sessions.get(sessionId)?.payment_intent);
  return { sessionId, saleId: sold.sale_id as number, orderNumber: sold.order_number as string, paymentIntent };
}
interface CheckoutStatus {
  sale_id: number | null;
  order_number: string | null;
  konbini: object | null;
}

/** Waits until the shop has handled Stripe's charge.refunded for this payment (the refund recorded, the mail queued). */
export function chargeRefundedHandled(shop: ShopWithStripe, paymentIntent: string) {
  return eventually(
    async () =>
      (
        await shop.runtime.deps.orm.em
          .fork()
          .execute<{ processed_at: string | null }[]>(
            "select processed_at from stripe_events where type = 'charge.refunded' and payload->'data'->'object'->>'payment_intent' = ?",
            [paymentIntent],
          )
      )[0]?.processed_at,
    15_000,
    'charge.refunded handled',
  );
}
