import { Hono } from 'hono';
import type Stripe from 'stripe';
import { LIMITS } from '../../config/limits.ts';
import { isStaffRole } from '../../http/access.ts';
import type { AppEnv } from '../../http/context.ts';
import { AppError } from '../../http/errors.ts';
import { requireUser, signedInUser } from '../../http/guards.ts';
import { jsonDepth, jsonInput, MAX_JSON_DEPTH } from '../../http/validate.ts';
import { checkoutDocs } from './responses.ts';
import { StartInput } from './schemas.ts';
import { checkoutStatus, startCheckout } from './service.ts';
import { receiveStripeEvent } from './stripe-events.ts';

/** Stripe's webhook: signed, so exempt from CSRF (see index.ts). */
export const WEBHOOK_PATH = '/stripe/webhook';
/** A webhook signed more than 5 minutes ago, or for more than 5 minutes from now, is refused. */
const WEBHOOK_TOLERANCE_SECONDS = 300;

export const checkoutRoutes = new Hono<AppEnv>()
  .post('/licenses/stripe', checkoutDocs.start, requireUser, async (c) => {
    const input = await jsonInput(c, StartInput);
    const user = signedInUser(c);
    if (isStaffRole(user.role))
      throw new AppError('forbidden', '管理用のアカウントでは購入できません。会員アカウントでログインしてください。');
    const { deps } = c.var;
    await deps.rateLimit.hit(LIMITS.checkoutsPerMember, user.id);
    return c.json(await startCheckout(deps.orm, deps.env, deps.stripe, user, input));
  })
  .get('/checkout/sessions/:id', checkoutDocs.status, requireUser, async (c) =>
    c.json(await checkoutStatus(c.var.deps.orm, signedInUser(c).id, c.req.param('id'))),
  )
  /**
   * Stripe's webhook: exempt from CSRF (it is signed). The signature is checked on the raw body;
   * the event is stored once and queued, and the answer is immediate. If the database is down the
   * answer is 503, so Stripe retries.
   */
  .post(WEBHOOK_PATH, checkoutDocs.webhook, async (c) => {
    const { payments, stripe, orm } = c.var.deps;
    const payload = await c.req.text();
    const signature = c.req.header('stripe-signature') ?? '';
    // Stripe's library reads the last `t=` and the check below the first: one timestamp, or none is trusted.
    if (signature.split(',').filter((part) => part.split('=')[0]?.trim() === 't').length > 1) {
      throw new AppError('bad_request', 'Webhook の署名を確認できませんでした。');
    }
    // Measured before anything parses it: a signed body nested thousands deep is still no event of ours.
    if (jsonDepth(payload) > MAX_JSON_DEPTH) throw new AppError('bad_request', 'JSON の入れ子が深すぎます。');
    let event: Stripe.Event;
    try {
      event = await stripe.webhooks.constructEventAsync(payload, signature, payments.webhookSecret, WEBHOOK_TOLERANCE_SECONDS);
    } catch {
      throw new AppError('bad_request', 'Webhook の署名を確認できませんでした。');
    }
    // Stripe's library refuses only timestamps too old; one from the future is as replayable later.
    const signedAt = Number(/(?:^|,)\s*t=(\d+)/.exec(signature)?.[1]);
    if (!(signedAt <= Date.now() / 1000 + WEBHOOK_TOLERANCE_SECONDS)) {
      throw new AppError('bad_request', 'Webhook のタイムスタンプが未来の時刻です。');
    }
    const result = await receiveStripeEvent(orm, event);
    return c.json({ received: true, duplicate: result === 'duplicate' });
  });
