import { Hono } from 'hono';
import * as v from 'valibot';
import type { AppEnv } from '../../http/context.ts';
import { AppError } from '../../http/errors.ts';
import { permit, signedInUser } from '../../http/guards.ts';
import { jsonInput, queryInput } from '../../http/validate.ts';
import { workersAlive } from '../health/index.ts';
import { acknowledgeFinding, FINDING_NOT_FOUND } from './finding-acknowledgements.ts';
import { FLAGGED_PAYMENT_NOT_FOUND, refundFlaggedPayment } from './flagged-refund.ts';
import { listStripeEvents, replayStripeEvent, STRIPE_EVENT_NOT_FOUND, stripeEventDetail } from './inbox.ts';
import { RUN_NOT_FOUND } from './reconciliation.ts';
import {
  acknowledgeReconciliation,
  listReconciliations,
  reconciliationDetail,
  requestReconciliation,
} from './reconciliation-runs.ts';
import { paymentDocs } from './responses.ts';
import {
  AcknowledgeInput,
  EventId,
  EventsQuery,
  FindingAcknowledgeInput,
  FlaggedRefundInput,
  ReconcileInput,
  RunId,
  RunsQuery,
  SessionId,
} from './schemas.ts';

/** The payments inbox and reconciliation (administrators). */
export const paymentRoutes = new Hono<AppEnv>()
  .get('/payments/events', paymentDocs.events, permit('payments:read'), async (c) => {
    const query = queryInput(c, EventsQuery);
    const filter = {
      type: query.type || undefined,
      state: query.state || undefined,
      sessionId: query.session || undefined,
      orderNumber: query.order_number || undefined,
      from: query.from || undefined,
      to: query.to || undefined,
    };
    const [page, alive] = await Promise.all([
      listStripeEvents(c.var.deps.orm, filter, query.page, query.per_page),
      workersAlive(c.var.deps),
    ]);
    // Received events are processed by a worker: the screen warns when none is running.
    return c.json({ ...page, workers_alive: alive });
  })
  .get('/payments/events/:id', paymentDocs.event, permit('payments:read'), async (c) => {
    const id = c.req.param('id');
    if (!v.is(EventId, id)) throw new AppError('not_found', STRIPE_EVENT_NOT_FOUND);
    return c.json(await stripeEventDetail(c.var.deps.orm, id));
  })
  .post('/payments/events/:id/replay', paymentDocs.replay, permit('payments:update'), async (c) => {
    const id = c.req.param('id');
    if (!v.is(EventId, id)) throw new AppError('not_found', STRIPE_EVENT_NOT_FOUND);
    const { orm, stripe, log, env } = c.var.deps;
    const user = signedInUser(c);
    return c.json(await replayStripeEvent({ orm, stripe, log, env }, { id: user.id, email: user.email }, id));
  })
  .get('/payments/reconciliations', paymentDocs.runs, permit('payments:read'), async (c) => {
    const query = queryInput(c, RunsQuery);
    return c.json(await listReconciliations(c.var.deps.orm, query.page, query.per_page, query.unacknowledged === 'true'));
  })
  .get('/payments/reconciliations/:id', paymentDocs.run, permit('payments:read'), async (c) => {
    const id = c.req.param('id');
    if (!v.is(RunId, id)) throw new AppError('not_found', RUN_NOT_FOUND);
    return c.json(await reconciliationDetail(c.var.deps.orm, id));
  })
  .post('/payments/reconciliations/:id/acknowledge', paymentDocs.acknowledgeRun, permit('payments:update'), async (c) => {
    const id = c.req.param('id');
    if (!v.is(RunId, id)) throw new AppError('not_found', RUN_NOT_FOUND);
    const input = await jsonInput(c, AcknowledgeInput);
    const user = signedInUser(c);
    return c.json(await acknowledgeReconciliation(c.var.deps.orm, { id: user.id, email: user.email }, id, input.note));
  })
  .post('/payments/findings/:id/acknowledge', paymentDocs.acknowledgeFinding, permit('payments:update'), async (c) => {
    const id = c.req.param('id');
    if (!v.is(RunId, id)) throw new AppError('not_found', FINDING_NOT_FOUND);
    const input = await jsonInput(c, FindingAcknowledgeInput);
    const user = signedInUser(c);
    return c.json(await acknowledgeFinding(c.var.deps.orm, { id: user.id, email: user.email }, id, input.note));
  })
  // Refunding money is the sales refund's permission (operators and administrators, not viewers).
  .post('/payments/sessions/:id/refund', paymentDocs.refundFlagged, permit('sales:refund'), async (c) => {
    const id = c.req.param('id');
    if (!v.is(SessionId, id)) throw new AppError('not_found', FLAGGED_PAYMENT_NOT_FOUND);
    const input = await jsonInput(c, FlaggedRefundInput);
    const user = signedInUser(c);
    const { orm, payments } = c.var.deps;
    return c.json(await refundFlaggedPayment({ orm, payments, log: c.var.log }, { id: user.id, email: user.email }, id, input));
  })
  .post('/payments/reconciliations', paymentDocs.reconcile, permit('payments:update'), async (c) => {
    const input = await jsonInput(c, ReconcileInput);
    const user = signedInUser(c);
    return c.json(await requestReconciliation(c.var.deps.orm, { id: user.id, email: user.email }, input.days), 202);
  });
