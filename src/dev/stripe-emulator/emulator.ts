import { randomBytes } from 'node:crypto';
import { Hono } from 'hono';
import Stripe from 'stripe';
import { parseStripeForm } from './form.ts';
import { bankTransferPage, checkoutPage, voucherPage } from './page.ts';

/** A local stand-in for the part of Stripe's API this shop uses, reached only through the real `stripe` SDK; konbini as Stripe does it. */
export interface EmulatorOptions {
  publicUrl: string;
  webhookUrl: string;
  webhookSecret: string;
  retry?: { attempts: number; delayMs: number };
  apiKey?: string;
  konbiniSweepMs?: number;
}

type Obj = Record<string, unknown>;
interface Session extends Obj {
  id: string;
  status: 'open' | 'complete' | 'expired';
  payment_status: 'unpaid' | 'paid' | 'no_payment_required';
  amount_total: number;
  currency: string;
  success_url: string;
  cancel_url: string;
  payment_intent: string | null;
}
interface StripeEventRecord {
  id: string;
  type: string;
  object: Obj;
  created: number;
  deliveries: { at: string; status: number | string }[];
}

const id = (prefix: string) => `${prefix}_test_${randomBytes(12).toString('base64url').replace(/[-_]/g, 'x')}`;
const now = () => Math.floor(Date.now() / 1000);
const digits = (n: number) => Array.from(randomBytes(n), (b) => String(b % 10)).join('');
const DAY = 24 * 3600;
const JST = 9 * 3600;
export function konbiniDeadline(from: number, days: number): number {
  const startOfJstDay = Math.floor((from + JST) / DAY) * DAY - JST;
  return startOfJstDay + (days + 1) * DAY - 1;
}

type PayMethod = 'card' | 'konbini' | 'bank_transfer';

/** customer_balance offered with a Japanese bank transfer (the only funding this emulator knows). */
function bankTransferOffered(session: Obj): boolean {
  const options = (session.payment_method_options as Obj | undefined)?.customer_balance as
    | { funding_type?: string; bank_transfer?: { type?: string } }
    | undefined;
  return (
    (session.payment_method_types as string[]).includes('customer_balance') &&
    options?.funding_type === 'bank_transfer' &&
    options.bank_transfer?.type === 'jp_bank_transfer'
  );
}

const REFUND_REASONS = ['duplicate', 'fraudulent', 'requested_by_customer'];

const errorBody = (type: string, message: string, extra: Obj = {}) => ({ error: { type, message, ...extra } });
const error = (status: number, type: string, message: string, extra: Obj = {}) =>
  Response.json(errorBody(type, message, extra), { status });

/** An error a test makes Stripe answer (a refusal, a 5xx) until it is cleared. */
export interface InjectedFailure {
  status: number;
  type: string;
  message: string;
  code?: string;
}
type FailingEndpoint = 'refunds' | 'checkout.sessions' | 'customers';

interface Remembered {
  endpoint: string;
  body: string;
  status: number;
  json: unknown;
}

export function eventJson(event: Pick<StripeEventRecord, 'id' | 'type' | 'created' | 'object'>) {
  return {
    id: event.id,
    object: 'event',
    api_version: '2026-10-28.endive',
    created: event.created,
    livemode: false,
    pending_webhooks: 1,
    request: { id: null, idempotency_key: null },
    type: event.type,
    data: { object: event.object },
  };
}

function createdWithin(query: URLSearchParams, created: number): boolean {
  const bound = (op: string) => (query.has(`created[${op}]`) ? Number(query.get(`created[${op}]`)) : undefined);
  const [gt, gte, lt, lte] = ['gt', 'gte', 'lt', 'lte'].map(bound);
  const exact = query.has('created') ? Number(query.get('created')) : undefined;
  return (
    (gt === undefined || created > gt) &&
    (gte === undefined || created >= gte) &&
    (lt === undefined || created < lt) &&
    (lte === undefined || created <= lte) &&
    (exact === undefined || created === exact)
  );
}

/** Cursors and `has_more` as Stripe's, so the SDK's auto-pagination walks it as it walks Stripe. */
function list(requestUrl: string, url: string, items: Obj[]): Response {
  const query = new URL(requestUrl).searchParams;
  const limit = Math.min(Math.max(Number(query.get('limit') ?? 10) || 10, 1), 100);
  const ordered = items.reverse();
  let from = 0;
  const after = query.get('starting_after');
  const before = query.get('ending_before');
  if (after) from = ordered.findIndex((item) => item.id === after) + 1;
  if (before) {
    const end = ordered.findIndex((item) => item.id === before);
    const start = Math.max(0, end - limit);
    return Response.json({ object: 'list', url, has_more: start > 0, data: ordered.slice(start, Math.max(end, 0)) });
  }
  const data = ordered.slice(from, from + limit);
  return Response.json({ object: 'list', url, has_more: from + limit < ordered.length, data });
}

export function createStripeEmulator(options: EmulatorOptions) {
  const sessions = new Map<string, Session>();
  const customers = new Map<string, Obj>();
  const paymentIntents = new Map<string, Obj>();
  const charges = new Map<string, Obj>();
  const refunds = new Map<string, Obj>();
  const idempotency = new Map<string, Remembered>();
  const failures = new Map<FailingEndpoint, InjectedFailure>();

  /** As Stripe's (docs.stripe.com/api/idempotent_requests): a key replays its first answer, errors and 500s too; not validation failures. */
  function replayed(endpoint: string, key: string | undefined, raw: string): Response | undefined {
    const seen = key ? idempotency.get(key) : undefined;
    if (!seen) return undefined;
    if (seen.endpoint !== endpoint)
      return error(
        400,
        'idempotency_error',
        `Keys for idempotent requests can only be used for the same endpoint they were first used for ('${seen.endpoint}').`,
      );
    if (seen.body !== raw)
      return error(
        400,
        'idempotency_error',
        'Keys for idempotent requests can only be used with the same parameters they were first used with.',
      );
    return Response.json(seen.json, { status: seen.status, headers: { 'idempotent-replayed': 'true' } });
  }
  // Stored before anything is awaited, so a second request with the key replays the first and never runs twice.
  function remember(endpoint: string, key: string | undefined, raw: string, status: number, json: unknown): Response {
    if (key) idempotency.set(key, { endpoint, body: raw, status, json });
    return Response.json(json, { status });
  }
  function rememberFailure(endpoint: string, key: string | undefined, raw: string, failing: FailingEndpoint) {
    const failure = failures.get(failing);
    if (!failure) return undefined;
    const body = errorBody(failure.type, failure.message, failure.code ? { code: failure.code } : {});
    return remember(endpoint, key, raw, failure.status, body);
  }
  const events: StripeEventRecord[] = [];
  const held: StripeEventRecord[] = [];
  let holding = false;
  const retry = options.retry ?? { attempts: 5, delayMs: 1_000 };
  const timers = new Set<NodeJS.Timeout>();
  const inFlight = new Set<Promise<void>>();

  async function send(event: StripeEventRecord): Promise<boolean> {
    const payload = JSON.stringify(eventJson(event));
    const signature = Stripe.webhooks.generateTestHeaderString({ payload, secret: options.webhookSecret });
    try {
      const res = await fetch(options.webhookUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'stripe-signature': signature },
        body: payload,
      });
      event.deliveries.push({ at: new Date().toISOString(), status: res.status });
      await res.body?.cancel();
      return res.ok;
    } catch (e) {
      event.deliveries.push({ at: new Date().toISOString(), status: String(e) });
      return false;
    }
  }

  function deliver(event: StripeEventRecord, attempt = 1): Promise<void> {
    const run = (async () => {
      if (await send(event)) return;
      if (attempt >= retry.attempts) return;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(
          () => {
            timers.delete(timer);
            resolve();
          },
          retry.delayMs * 2 ** (attempt - 1),
        );
        timers.add(timer);
      });
      await deliver(event, attempt + 1);
    })();
    inFlight.add(run);
    void run.finally(() => inFlight.delete(run));
    return run;
  }

  function emit(type: string, object: Obj): StripeEventRecord {
    const event: StripeEventRecord = { id: id('evt'), type, object: structuredClone(object), created: now(), deliveries: [] };
    events.push(event);
    if (holding) held.push(event);
    else void deliver(event);
    return event;
  }

  function publicSession(session: Session): Obj {
    return structuredClone(session);
  }

  function pay(session: Session, method: PayMethod) {
    if (method === 'bank_transfer' && !bankTransferOffered(session)) throw new Error('bank transfer not offered');
    const pi = id('pi');
    const charge = id('ch');
    const paid = method === 'card';
    charges.set(charge, {
      id: charge,
      object: 'charge',
      amount: session.amount_total,
      amount_refunded: 0,
      currency: session.currency,
      paid,
      refunded: false,
      payment_intent: pi,
      receipt_url: `${options.publicUrl}/receipts/${charge}`,
      status: paid ? 'succeeded' : 'pending',
    });
    const days = Number((session.payment_method_options as Obj | undefined)?.konbini_expires_after_days ?? 3);
    paymentIntents.set(pi, {
      id: pi,
      object: 'payment_intent',
      amount: session.amount_total,
      currency: session.currency,
      status: paid ? 'succeeded' : 'requires_action',
      latest_charge: charge,
      payment_method_types: [method === 'bank_transfer' ? 'customer_balance' : method],
      customer: session.customer ?? null,
      created: now(),
      next_action: paid
        ? null
        : method === 'bank_transfer'
          ? bankTransferNextAction(pi, session)
          : konbiniNextAction(pi, konbiniDeadline(now(), days)),
    });
    Object.assign(session, { status: 'complete', payment_status: paid ? 'paid' : 'unpaid', payment_intent: pi });
    return emit('checkout.session.completed', publicSession(session));
  }

  /** A virtual account per customer, as Stripe gives one (zengin), kept for every later transfer. */
  function virtualAccountOf(customerId: string) {
    const customer = customers.get(customerId) as Obj;
    customer.virtual_account ??= {
      account_holder_name: 'ｽﾄﾗｲﾌﾟｼﾞﾔﾊﾟﾝ(ｶ',
      account_number: digits(7),
      account_type: 'futsu',
      bank_code: '0001',
      bank_name: 'テスト銀行',
      branch_code: digits(3),
      branch_name: 'テスト支店',
    };
    return customer.virtual_account as Obj;
  }

  function bankTransferNextAction(pi: string, session: Session) {
    return {
      type: 'display_bank_transfer_instructions',
      display_bank_transfer_instructions: {
        amount_remaining: session.amount_total,
        currency: session.currency,
        financial_addresses: [
          { type: 'zengin', supported_networks: ['zengin'], zengin: virtualAccountOf(String(session.customer)) },
        ],
        hosted_instructions_url: `${options.publicUrl}/bank-transfers/${pi}`,
        reference: null,
        type: 'jp_bank_transfer',
      },
    };
  }

  function konbiniNextAction(pi: string, expiresAt: number) {
    // One payment code for every chain and a confirmation number, as in Stripe's test mode.
    const payment_code = digits(12);
    const confirmation_number = digits(11);
    const store = { confirmation_number, payment_code };
    return {
      type: 'konbini_display_details',
      konbini_display_details: {
        expires_at: expiresAt,
        hosted_voucher_url: `${options.publicUrl}/vouchers/${pi}`,
        stores: { familymart: { ...store }, lawson: { ...store }, ministop: { ...store }, seicomart: { ...store } },
      },
    };
  }

  function settleKonbini(session: Session, succeeded: boolean) {
    const pi = paymentIntents.get(session.payment_intent ?? '');
    if (!pi) throw new Error('no pending konbini payment');
    const charge = charges.get(String(pi.latest_charge));
    pi.next_action = null;
    if (succeeded) {
      Object.assign(pi, { status: 'succeeded' });
      Object.assign(charge ?? {}, { paid: true, status: 'succeeded' });
      session.payment_status = 'paid';
      return emit('checkout.session.async_payment_succeeded', publicSession(session));
    }
    Object.assign(pi, { status: 'canceled', cancellation_reason: 'abandoned', canceled_at: now() });
    Object.assign(charge ?? {}, { status: 'failed' });
    return emit('checkout.session.async_payment_failed', publicSession(session));
  }

  function sweepLapsedKonbini(at = now()) {
    for (const session of sessions.values()) {
      const pi = paymentIntents.get(session.payment_intent ?? '');
      const details = (pi?.next_action as { konbini_display_details?: { expires_at: number } } | null | undefined)
        ?.konbini_display_details;
      if (pi?.status === 'requires_action' && details && details.expires_at < at) settleKonbini(session, false);
      if (session.status === 'open' && Number(session.expires_at) <= at) expire(session);
    }
  }
  const sweep = setInterval(() => sweepLapsedKonbini(), options.konbiniSweepMs ?? 1_000);
  sweep.unref();

  function lapseKonbini(session: Session) {
    const pi = paymentIntents.get(session.payment_intent ?? '');
    const details = (pi?.next_action as { konbini_display_details?: { expires_at: number } } | null | undefined)
      ?.konbini_display_details;
    if (pi?.status !== 'requires_action' || !details) return null;
    details.expires_at = now() - 1;
    const before = events.length;
    sweepLapsedKonbini();
    return events[before] ?? null;
  }

  function createRefund(
    paymentIntentId: string,
    amount?: number,
    metadata: Obj = {},
    reason: string | null = null,
  ): { refund: Obj } | { status: number; code: string; message: string } {
    const pi = paymentIntents.get(paymentIntentId);
    const charge = pi ? charges.get(String(pi.latest_charge)) : undefined;
    if (!pi || !charge) {
      return { status: 404, code: 'resource_missing', message: `No such payment_intent: '${paymentIntentId}'` };
    }
    if (charge.status !== 'succeeded' || !charge.paid) {
      return {
        status: 400,
        code: 'charge_not_refundable',
        message: `This PaymentIntent (${paymentIntentId}) does not have a successful charge to refund.`,
      };
    }
    const left = Number(charge.amount) - Number(charge.amount_refunded ?? 0);
    if (left <= 0)
      return { status: 400, code: 'charge_already_refunded', message: `Charge ${charge.id} has already been refunded.` };
    const value = amount ?? left;
    if (!Number.isInteger(value) || value < 1 || value > left) {
      return {
        status: 400,
        code: 'amount_too_large',
        message: `Refund amount (¥${value}) is greater than unrefunded amount on charge (¥${left})`,
      };
    }
    const refunded = Number(charge.amount_refunded ?? 0) + value;
    Object.assign(charge, { refunded: refunded >= Number(charge.amount), amount_refunded: refunded });
    const refundObject = {
      id: id('re'),
      object: 'refund',
      amount: value,
      charge: charge.id,
      payment_intent: pi.id,
      currency: charge.currency,
      metadata,
      reason,
      status: 'succeeded',
      created: now(),
    };
    refunds.set(refundObject.id, refundObject);
    emit('charge.refunded', charge);
    return { refund: refundObject };
  }

  function refund(paymentIntentId: string) {
    const result = createRefund(paymentIntentId);
    return 'refund' in result ? result.refund : null;
  }

  function expire(session: Session) {
    if (session.status !== 'open') return false;
    session.status = 'expired';
    emit('checkout.session.expired', publicSession(session));
    return true;
  }

  const app = new Hono();
  const apiKey = options.apiKey;
  app.use('/v1/*', async (c, next) => {
    const auth = c.req.header('authorization') ?? '';
    const key = auth.replace(/^Bearer\s+/i, '');
    if (!key || !/^(sk|rk)_/.test(key) || (apiKey && key !== apiKey)) {
      return error(401, 'invalid_request_error', 'Invalid API Key provided.');
    }
    return next();
  });

  app.post('/v1/checkout/sessions', async (c) => {
    const raw = await c.req.text();
    const key = c.req.header('idempotency-key');
    const replay = replayed('/v1/checkout/sessions', key, raw);
    if (replay) return replay;
    const failure = rememberFailure('/v1/checkout/sessions', key, raw, 'checkout.sessions');
    if (failure) return failure;
    const params = parseStripeForm(raw) as Obj;
    const items = (params.line_items as Obj[] | undefined) ?? [];
    const item = items[0] as
      | { price_data?: { currency?: string; unit_amount?: string; product_data?: { name?: string } }; quantity?: string }
      | undefined;
    const unit = Number(item?.price_data?.unit_amount);
    const quantity = Number(item?.quantity ?? 1);
    if (!item?.price_data || !Number.isInteger(unit) || unit < 0 || !Number.isInteger(quantity) || quantity < 1) {
      return error(400, 'invalid_request_error', 'line_items[0][price_data] with an integer unit_amount is required.', {
        param: 'line_items',
      });
    }
    if (params.mode !== 'payment')
      return error(400, 'invalid_request_error', 'Only mode=payment is supported.', { param: 'mode' });
    for (const param of ['success_url', 'cancel_url']) {
      if (typeof params[param] !== 'string')
        return error(400, 'invalid_request_error', `Missing required param: ${param}.`, { param });
    }
    const expiresAt = params.expires_at === undefined ? now() + 24 * 3600 : Number(params.expires_at);
    if (!Number.isInteger(expiresAt) || expiresAt < now() + 30 * 60 - 5 || expiresAt > now() + 24 * 3600) {
      return error(400, 'invalid_request_error', 'expires_at must be between 30 minutes and 24 hours from now.', {
        param: 'expires_at',
      });
    }
    const types = ((params.allowed_payment_method_types ?? params.payment_method_types) as string[] | undefined) ?? [
      'card',
      'konbini',
    ];
    const balance = (params.payment_method_options as Obj | undefined)?.customer_balance as Obj | undefined;
    const customer = typeof params.customer === 'string' ? params.customer : null;
    if (customer && !customers.has(customer))
      return error(400, 'invalid_request_error', `No such customer: '${customer}'`, {
        param: 'customer',
        code: 'resource_missing',
      });
    if (customer && params.customer_email !== undefined)
      return error(400, 'invalid_request_error', 'You may only specify one of these parameters: customer, customer_email.');
    if (types.includes('customer_balance') && !customer)
      return error(400, 'invalid_request_error', 'customer_balance requires a customer.', { param: 'customer' });
    const sessionId = id('cs');
    const session: Session = {
      id: sessionId,
      object: 'checkout.session',
      mode: 'payment',
      status: 'open',
      payment_status: 'unpaid',
      amount_subtotal: unit * quantity,
      amount_total: unit * quantity,
      currency: String(item.price_data.currency ?? '').toLowerCase(),
      client_reference_id: (params.client_reference_id as string | undefined) ?? null,
      customer_email: (params.customer_email as string | undefined) ?? null,
      customer,
      metadata: (params.metadata as Obj | undefined) ?? {},
      locale: (params.locale as string | undefined) ?? null,
      payment_method_types: types,
      payment_method_options: {
        ...(balance ? { customer_balance: balance } : {}),
        konbini_expires_after_days: Math.min(
          Math.max(
            Number(((params.payment_method_options as Obj | undefined)?.konbini as Obj | undefined)?.expires_after_days ?? 3) ||
              3,
            1,
          ),
          60,
        ),
      },
      success_url: String(params.success_url),
      cancel_url: String(params.cancel_url),
      payment_intent: null,
      created: now(),
      expires_at: expiresAt,
      livemode: false,
      line_items_name: item.price_data.product_data?.name ?? '',
      url: `${options.publicUrl}/c/pay/${sessionId}#${randomBytes(24).toString('base64url')}`,
    };
    sessions.set(sessionId, session);
    return remember('/v1/checkout/sessions', key, raw, 200, publicSession(session));
  });

  app.get('/v1/checkout/sessions', (c) => {
    const query = new URL(c.req.url).searchParams;
    const pi = query.get('payment_intent');
    const status = query.get('status');
    const matching = [...sessions.values()].filter(
      (s) => (!pi || s.payment_intent === pi) && (!status || s.status === status) && createdWithin(query, Number(s.created)),
    );
    return list(c.req.url, '/v1/checkout/sessions', matching.map(publicSession));
  });

  app.get('/v1/checkout/sessions/:id', (c) => {
    const session = sessions.get(c.req.param('id'));
    if (!session)
      return error(404, 'invalid_request_error', `No such checkout.session: '${c.req.param('id')}'`, {
        code: 'resource_missing',
      });
    return c.json(publicSession(session));
  });

  app.post('/v1/checkout/sessions/:id/expire', (c) => {
    const session = sessions.get(c.req.param('id'));
    if (!session) return error(404, 'invalid_request_error', 'No such checkout.session', { code: 'resource_missing' });
    if (!expire(session))
      return error(400, 'invalid_request_error', `Only open sessions can be expired (status: ${session.status}).`);
    return c.json(publicSession(session));
  });

  app.post('/v1/customers', async (c) => {
    const raw = await c.req.text();
    const key = c.req.header('idempotency-key');
    const replay = replayed('/v1/customers', key, raw);
    if (replay) return replay;
    const failure = rememberFailure('/v1/customers', key, raw, 'customers');
    if (failure) return failure;
    const params = parseStripeForm(raw) as Obj;
    const customer = {
      id: id('cus'),
      object: 'customer',
      email: (params.email as string | undefined) ?? null,
      name: (params.name as string | undefined) ?? null,
      metadata: (params.metadata as Obj | undefined) ?? {},
      balance: 0,
      created: now(),
      livemode: false,
    };
    customers.set(customer.id, customer);
    return remember('/v1/customers', key, raw, 200, customer);
  });
  app.get('/v1/customers/:id', (c) => {
    const customer = customers.get(c.req.param('id'));
    if (!customer) return error(404, 'invalid_request_error', 'No such customer', { code: 'resource_missing' });
    const { virtual_account: _, ...body } = customer;
    return c.json(body);
  });
  app.post('/v1/payment_intents/:id/cancel', (c) => {
    const pi = paymentIntents.get(c.req.param('id'));
    if (!pi) return error(404, 'invalid_request_error', 'No such payment_intent', { code: 'resource_missing' });
    if (pi.status !== 'requires_action' && pi.status !== 'requires_payment_method')
      return error(
        400,
        'invalid_request_error',
        `You cannot cancel this PaymentIntent because it has a status of ${pi.status}.`,
        {
          code: 'payment_intent_unexpected_state',
        },
      );
    const session = [...sessions.values()].find((s) => s.payment_intent === pi.id);
    if (session) settleKonbini(session, false);
    else Object.assign(pi, { status: 'canceled', next_action: null });
    return c.json(structuredClone(pi));
  });

  app.get('/v1/payment_intents/:id', (c) => {
    const pi = paymentIntents.get(c.req.param('id'));
    if (!pi) return error(404, 'invalid_request_error', 'No such payment_intent', { code: 'resource_missing' });
    const expand = new URL(c.req.url).searchParams.getAll('expand[]').concat(new URL(c.req.url).searchParams.getAll('expand[0]'));
    const body = structuredClone(pi);
    if (expand.includes('latest_charge')) body.latest_charge = structuredClone(charges.get(String(pi.latest_charge)) ?? null);
    return c.json(body);
  });

  app.post('/v1/refunds', async (c) => {
    const raw = await c.req.text();
    const key = c.req.header('idempotency-key');
    const replay = replayed('/v1/refunds', key, raw);
    if (replay) return replay;
    const params = parseStripeForm(raw) as Obj;
    const intent = typeof params.payment_intent === 'string' ? params.payment_intent : '';
    if (!intent)
      return error(400, 'invalid_request_error', 'Missing required param: payment_intent.', { param: 'payment_intent' });
    const amount = params.amount === undefined ? undefined : Number(params.amount);
    const reason = params.reason === undefined ? null : String(params.reason);
    // Stripe takes only these reasons (a refund made in its dashboard may say none).
    if (reason !== null && !REFUND_REASONS.includes(reason))
      return error(400, 'invalid_request_error', `Invalid reason: must be one of ${REFUND_REASONS.join(', ')}`, {
        param: 'reason',
      });
    const failure = rememberFailure('/v1/refunds', key, raw, 'refunds');
    if (failure) return failure;
    const result = createRefund(intent, amount, (params.metadata as Obj | undefined) ?? {}, reason);
    if ('refund' in result) return remember('/v1/refunds', key, raw, 200, result.refund);
    const refused = errorBody('invalid_request_error', result.message, { code: result.code });
    return remember('/v1/refunds', key, raw, result.status, refused);
  });

  app.get('/v1/refunds', (c) => {
    const query = new URL(c.req.url).searchParams;
    const pi = query.get('payment_intent');
    const matching = [...refunds.values()].filter(
      (r) => (!pi || r.payment_intent === pi) && createdWithin(query, Number(r.created)),
    );
    return list(
      c.req.url,
      '/v1/refunds',
      matching.map((r) => structuredClone(r)),
    );
  });

  // The hosted payment page.
  app.get('/c/pay/:id', (c) => {
    const session = sessions.get(c.req.param('id'));
    if (!session)
      return c.html('<!doctype html><html lang="ja"><body><h1>お支払いページが見つかりません</h1></body></html>', 404);
    return c.html(
      checkoutPage({ ...session, name: String(session.line_items_name), bankTransfer: bankTransferOffered(session) }),
    );
  });
  const back = (url: string, session: Session) => url.replace('{CHECKOUT_SESSION_ID}', session.id);
  app.post('/c/pay/:id/:action', (c) => {
    const session = sessions.get(c.req.param('id'));
    if (session?.status !== 'open')
      return c.html(
        '<!doctype html><html lang="ja"><body><h1>このお支払いは完了しているか、期限切れです</h1></body></html>',
        409,
      );
    const action = c.req.param('action');
    if (action === 'cancel') return c.redirect(back(session.cancel_url, session), 303);
    if (action !== 'card' && action !== 'konbini' && !(action === 'bank_transfer' && bankTransferOffered(session)))
      return c.text('unknown action', 404);
    pay(session, action);
    return c.redirect(back(session.success_url, session), 303);
  });
  // The hosted konbini voucher (Stripe's hosted_voucher_url).
  app.get('/vouchers/:pi', (c) => {
    const pi = paymentIntents.get(c.req.param('pi'));
    const session = pi ? [...sessions.values()].find((s) => s.payment_intent === pi.id) : undefined;
    if (!pi || !session || !(pi.payment_method_types as string[]).includes('konbini'))
      return c.html(
        '<!doctype html><html lang="ja"><head><title>お支払い番号</title></head><body><main><h1>お支払い番号が見つかりません</h1></main></body></html>',
        404,
      );
    return c.html(voucherPage({ paymentIntent: pi, name: String(session.line_items_name) }));
  });
  // The hosted bank transfer instructions (Stripe's hosted_instructions_url).
  app.get('/bank-transfers/:pi', (c) => {
    const pi = paymentIntents.get(c.req.param('pi'));
    const session = pi ? [...sessions.values()].find((s) => s.payment_intent === pi.id) : undefined;
    if (!pi || !session || !(pi.payment_method_types as string[]).includes('customer_balance'))
      return c.html(
        '<!doctype html><html lang="ja"><head><title>お振込先</title></head><body><main><h1>お振込先が見つかりません</h1></main></body></html>',
        404,
      );
    return c.html(bankTransferPage({ paymentIntent: pi, name: String(session.line_items_name) }));
  });
  app.get('/receipts/:charge', (c) => {
    const charge = charges.get(c.req.param('charge'));
    if (!charge) return c.text('not found', 404);
    return c.html(
      `<!doctype html><html lang="ja"><body><h1>領収書（テスト）</h1><p>¥${Number(charge.amount).toLocaleString('ja-JP')}</p></body></html>`,
    );
  });

  // Controls for developers and tests.
  app.get('/_emulator/events', (c) => c.json({ events }));
  app.post('/_emulator/sessions/:id/konbini/:result', (c) => {
    const session = sessions.get(c.req.param('id'));
    if (!session) return c.json({ error: 'no such session' }, 404);
    const result = c.req.param('result');
    if (result === 'expired') {
      const event = lapseKonbini(session);
      return event ? c.json({ event: event.id }) : c.json({ error: 'no pending konbini payment' }, 409);
    }
    const event = settleKonbini(session, result === 'paid');
    return c.json({ event: event.id });
  });
  app.post('/_emulator/sessions/:id/bank-transfer/:result', (c) => {
    const session = sessions.get(c.req.param('id'));
    const pi = paymentIntents.get(session?.payment_intent ?? '');
    const result = c.req.param('result');
    if (!session) return c.json({ error: 'no such session' }, 404);
    if (result !== 'paid' && result !== 'failed') return c.json({ error: 'paid or failed' }, 404);
    if (!(pi?.payment_method_types as string[] | undefined)?.includes('customer_balance') || pi?.status !== 'requires_action')
      return c.json({ error: 'no pending bank transfer' }, 409);
    // The transfer credits the customer's balance, which Stripe applies to the payment at once.
    return c.json({ event: settleKonbini(session, result === 'paid').id });
  });
  // A refund made in Stripe's dashboard: the whole charge, no reason, no idempotency key.
  app.post('/_emulator/payment_intents/:id/refund', (c) => {
    const result = createRefund(c.req.param('id'));
    return 'refund' in result ? c.json(result.refund) : c.json({ error: result.message, code: result.code }, 409);
  });
  app.post('/_emulator/events/:id/redeliver', async (c) => {
    const event = events.find((e) => e.id === c.req.param('id'));
    if (!event) return c.json({ error: 'no such event' }, 404);
    await deliver(event);
    return c.json({ deliveries: event.deliveries });
  });

  return {
    app,
    sessions,
    events,
    customers,
    pay: (sessionId: string, method: PayMethod = 'card') => {
      const session = sessions.get(sessionId);
      if (!session) throw new Error(`no session ${sessionId}`);
      return pay(session, method);
    },
    settleKonbini: (sessionId: string, succeeded: boolean) => settleKonbini(sessions.get(sessionId) as Session, succeeded),
    lapseKonbini: (sessionId: string) => lapseKonbini(sessions.get(sessionId) as Session),
    paymentIntents,
    expire: (sessionId: string) => expire(sessions.get(sessionId) as Session),
    refund,
    refunds,
    /** Makes an endpoint answer `failure` (a refusal, a 5xx) until called with null; answers are remembered per key as Stripe's. */
    fail: (endpoint: FailingEndpoint, failure: InjectedFailure | null) => {
      if (failure) failures.set(endpoint, failure);
      else failures.delete(endpoint);
    },
    patchSession: (sessionId: string, patch: Obj) => Object.assign(sessions.get(sessionId) as Session, patch),
    /** Holds events instead of delivering them, so a test can deliver them in any order, or twice. */
    hold: () => {
      holding = true;
    },
    held: () => [...held],
    release: async (order: StripeEventRecord[] = [...held], times = 1) => {
      holding = false;
      held.length = 0;
      for (const event of order) for (let i = 0; i < times; i++) await deliver(event);
    },
    deliver: (event: StripeEventRecord) => deliver(event),
    settle: async () => {
      while (inFlight.size) await Promise.all([...inFlight]);
    },
    close: () => {
      clearInterval(sweep);
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
    },
  };
}
export type StripeEmulator = ReturnType<typeof createStripeEmulator>;
