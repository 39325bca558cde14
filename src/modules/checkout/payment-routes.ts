import { Hono } from 'hono';
import * as v from 'valibot';
import type { AppEnv } from '../../http/context.ts';
import { AppError } from '../../http/errors.ts';
import { requireAdmin, signedInUser } from '../../http/guards.ts';
import { jsonInput, paging, queryInput, rules } from '../../http/validate.ts';
import { printable } from '../../lib/printable-text.ts';
import { parseOrderNumber } from '../sales/index.ts';
import { acknowledgeFinding, FINDING_NOT_FOUND } from './finding-acknowledgements.ts';
import { listStripeEvents, replayStripeEvent, STRIPE_EVENT_NOT_FOUND, stripeEventDetail } from './inbox.ts';
import {
  acknowledgeReconciliation,
  listReconciliations,
  RECONCILIATION_DAYS,
  RUN_NOT_FOUND,
  reconciliationDetail,
  requestReconciliation,
} from './reconciliation.ts';

const optionalDate = v.optional(v.union([v.literal(''), rules.date()], '日付が正しくありません。'));

const EventsQuery = v.object({
  type: v.optional(
    v.pipe(
      v.string('種類が正しくありません。'),
      v.maxLength(100, '種類が正しくありません。'),
      v.regex(/^[a-z0-9_.]*$/, '種類が正しくありません。'),
    ),
  ),
  state: v.optional(v.picklist(['', 'received', 'processed', 'failed'], '状態が正しくありません。')),
  session: v.optional(
    v.pipe(
      v.string('Checkout Session が正しくありません。'),
      v.regex(/^[A-Za-z0-9_]{0,255}$/, 'Checkout Session が正しくありません。'),
    ),
  ),
  order_number: v.optional(
    v.pipe(
      v.string('注文番号が正しくありません。'),
      v.trim(),
      v.maxLength(30, '注文番号は「LS-2611-7K3Q9M」の形で入力してください。'),
      v.check((text) => text === '' || parseOrderNumber(text) !== null, '注文番号は「LS-2611-7K3Q9M」の形で入力してください。'),
    ),
  ),
  from: optionalDate,
  to: optionalDate,
  ...paging,
});
const RunsQuery = v.object({
  ...paging,
  unacknowledged: v.optional(v.picklist(['', 'true', 'false'], '絞り込みの指定が正しくありません。'), ''),
});
const AcknowledgeInput = v.object({
  note: v.optional(
    v.pipe(
      v.string('メモは文字で入力してください。'),
      printable('メモ', { multiline: true }),
      v.trim(),
      v.maxLength(500, 'メモは500文字以内で入力してください。'),
    ),
    '',
  ),
});
const FindingAcknowledgeInput = v.object({
  note: v.pipe(
    v.string('メモを入力してください。'),
    printable('メモ', { multiline: true }),
    v.trim(),
    v.minLength(1, '確認した内容や対応をメモに入力してください。'),
    v.maxLength(500, 'メモは500文字以内で入力してください。'),
  ),
});
const EventId = v.pipe(v.string(), v.regex(/^evt_[A-Za-z0-9_]{1,250}$/));
const RunId = v.pipe(v.string(), v.uuid());

const ReconcileInput = v.object({
  days: v.optional(
    v.pipe(
      v.number('日数は1〜90の整数で入力してください。'),
      v.integer('日数は1〜90の整数で入力してください。'),
      v.minValue(1, '日数は1〜90の整数で入力してください。'),
      v.maxValue(90, '日数は1〜90の整数で入力してください。'),
    ),
    RECONCILIATION_DAYS,
  ),
});

/** The payments inbox and reconciliation (administrators). */
export const paymentRoutes = new Hono<AppEnv>()
  .get('/payments/events', requireAdmin, async (c) => {
    const query = queryInput(c, EventsQuery);
    const filter = {
      type: query.type || undefined,
      state: query.state || undefined,
      sessionId: query.session || undefined,
      orderNumber: query.order_number || undefined,
      from: query.from || undefined,
      to: query.to || undefined,
    };
    return c.json(await listStripeEvents(c.var.deps.orm, filter, query.page, query.per_page));
  })
  .get('/payments/events/:id', requireAdmin, async (c) => {
    const id = c.req.param('id');
    if (!v.is(EventId, id)) throw new AppError('not_found', STRIPE_EVENT_NOT_FOUND);
    return c.json(await stripeEventDetail(c.var.deps.orm, id));
  })
  .post('/payments/events/:id/replay', requireAdmin, async (c) => {
    const id = c.req.param('id');
    if (!v.is(EventId, id)) throw new AppError('not_found', STRIPE_EVENT_NOT_FOUND);
    const { orm, stripe, log } = c.var.deps;
    const user = signedInUser(c);
    return c.json(await replayStripeEvent({ orm, stripe, log }, { id: user.id, email: user.email }, id));
  })
  .get('/payments/reconciliations', requireAdmin, async (c) => {
    const query = queryInput(c, RunsQuery);
    return c.json(await listReconciliations(c.var.deps.orm, query.page, query.per_page, query.unacknowledged === 'true'));
  })
  .get('/payments/reconciliations/:id', requireAdmin, async (c) => {
    const id = c.req.param('id');
    if (!v.is(RunId, id)) throw new AppError('not_found', RUN_NOT_FOUND);
    return c.json(await reconciliationDetail(c.var.deps.orm, id));
  })
  .post('/payments/reconciliations/:id/acknowledge', requireAdmin, async (c) => {
    const id = c.req.param('id');
    if (!v.is(RunId, id)) throw new AppError('not_found', RUN_NOT_FOUND);
    const input = await jsonInput(c, AcknowledgeInput);
    const user = signedInUser(c);
    return c.json(await acknowledgeReconciliation(c.var.deps.orm, { id: user.id, email: user.email }, id, input.note));
  })
  .post('/payments/findings/:id/acknowledge', requireAdmin, async (c) => {
    const id = c.req.param('id');
    if (!v.is(RunId, id)) throw new AppError('not_found', FINDING_NOT_FOUND);
    const input = await jsonInput(c, FindingAcknowledgeInput);
    const user = signedInUser(c);
    return c.json(await acknowledgeFinding(c.var.deps.orm, { id: user.id, email: user.email }, id, input.note));
  })
  .post('/payments/reconciliations', requireAdmin, async (c) => {
    const input = await jsonInput(c, ReconcileInput);
    const user = signedInUser(c);
    return c.json(await requestReconciliation(c.var.deps.orm, { id: user.id, email: user.email }, input.days), 202);
  });
