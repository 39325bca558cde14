import { serve } from '@hono/node-server';
import { createStripeEmulator } from '../../src/dev/stripe-emulator/emulator.ts';
import { freePort } from './ports.ts';
import type { TestRuntimeOptions } from './runtime.ts';
import { startTestServer } from './server.ts';

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
