import { parseArgs } from 'node:util';
import { serve } from '@hono/node-server';
import { createStripeEmulator } from './emulator.ts';

/**
 * The Stripe emulator as a service of its own (`npm run stripe:emulator -- …`), for a development
 * deployment of several web processes: the one built into a web process keeps its sessions in that
 * process's memory, so a session created on one host could not be paid on another. The shop then runs
 * with `STRIPE_API_URL` pointing here, keys of its own and `STRIPE_CHECKOUT_ORIGIN` = `--public-url`
 * (compose.yaml does this). Never for production: it only pretends to take money.
 */
const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '12111' },
    host: { type: 'string', default: '0.0.0.0' },
    'public-url': { type: 'string' },
    'webhook-url': { type: 'string' },
    'webhook-secret': { type: 'string' },
    'api-key': { type: 'string' },
  },
});
const missing = ['public-url', 'webhook-url', 'webhook-secret', 'api-key'].filter((name) => !values[name as keyof typeof values]);
if (missing.length) {
  console.error(
    `使い方 (usage): npm run stripe:emulator -- --public-url http://localhost:12111 --webhook-url http://web:3000/api/stripe/webhook --webhook-secret whsec_… --api-key sk_test_… [--port 12111]\n` +
      `足りない指定 (missing): ${missing.map((name) => `--${name}`).join(', ')}`,
  );
  process.exit(2);
}
const emulator = createStripeEmulator({
  publicUrl: values['public-url'] as string,
  webhookUrl: values['webhook-url'] as string,
  webhookSecret: values['webhook-secret'] as string,
  apiKey: values['api-key'] as string,
  // Web processes restart one at a time: keep trying for about a minute.
  retry: { attempts: 8, delayMs: 500 },
});
const server = serve({ fetch: emulator.app.fetch, port: Number(values.port), hostname: values.host }, (info) =>
  console.log(`Stripe エミュレーター (Stripe emulator): ${values['public-url']} (port ${info.port})`),
);
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => {
    emulator.close();
    server.close(() => process.exit(0));
  });
}
