import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { db as kysely } from '../../db/kysely.ts';
import type { Em, Orm } from '../../db/orm.ts';
import { recordEvent, transact } from '../../events/outbox.ts';
import { AppError } from '../../http/errors.ts';
import { type Actor, recordAudit } from '../audit/index.ts';
import { salePaymentsOfIds } from '../sales/index.ts';
import { PaymentFinding, ReconciliationRun } from './entities/reconciliation.entity.ts';
import { findingAcknowledgement, openFindingCounts } from './finding-acknowledgements.ts';
import { flaggedRefundViews } from './flagged-refund-record.ts';
import { FINDING_LABELS, type FindingKind, RUN_NOT_FOUND, RUN_STATE_LABELS } from './reconciliation.ts';

/**
 * A run an administrator has to look at: the administrators were told of its differences or its
 * failure (`notified`), nobody marked it 確認済み, and no retry has since finished it clean. A failed run
 * being retried stays; runs from before these notices never appear.
 */
const needsAttention = (run: Pick<ReconciliationRun, 'state' | 'findings' | 'notified' | 'acknowledgedAt'>) =>
  !run.acknowledgedAt && Boolean(run.notified) && !(run.state === 'done' && run.findings === 0);
const NEEDS_ATTENTION = {
  acknowledgedAt: null,
  notified: { $ne: null },
  $not: { state: 'done', findings: 0 },
} as const;

/** `openFindings`: its findings not yet marked 確認済み one by one (unknown: its count of findings). */
function runView(run: ReconciliationRun, openFindings?: number) {
  return {
    id: run.id,
    trigger: run.trigger,
    trigger_label: run.trigger === 'schedule' ? '定期（毎日 3:00）' : '手動',
    requested_by: run.requestedBy ?? null,
    days: run.days,
    state: run.state,
    state_label: RUN_STATE_LABELS[run.state] ?? run.state,
    created_at: run.createdAt,
    started_at: run.startedAt ?? null,
    finished_at: run.finishedAt ?? null,
    sessions_checked: run.sessionsChecked,
    sales_checked: run.salesChecked,
    refunds_checked: run.refundsChecked,
    findings: run.findings,
    open_findings: openFindings ?? run.findings,
    error: run.error ?? null,
    needs_attention: needsAttention(run),
    notified: run.notified ?? null,
    acknowledged_at: run.acknowledgedAt ?? null,
    acknowledged_by: run.acknowledgedBy ?? null,
    acknowledgement_note: run.acknowledgementNote ?? null,
  };
}

/** The 「今すぐ照合」 button: a queued run and its event, in one transaction (audited). */
export async function requestReconciliation(orm: Orm, actor: Actor, days: number) {
  const em = orm.em.fork() as Em;
  return transact(em, async (tx) => {
    // One manual run at a time: a second click while one is under way shows that run.
    // SQL as text: an advisory lock (a function called for its effect), which no query builder says.
    await sql`select pg_advisory_xact_lock(hashtext('payment-reconciliation-request'))`.execute(kysely(tx));
    const busy = await tx.findOne(
      ReconciliationRun,
      { state: { $in: ['queued', 'running'] }, createdAt: { $gt: new Date(Date.now() - 15 * 60_000) } },
      { orderBy: { createdAt: 'desc' } },
    );
    if (busy) throw new AppError('conflict', '照合を実行中です。終わるまでお待ちください。');
    const run = tx.create(ReconciliationRun, {
      id: randomUUID(),
      trigger: 'manual',
      requestedBy: actor.email,
      days,
      state: 'queued',
      createdAt: new Date(),
    });
    recordAudit(tx, actor, { action: 'reconciliation.run', targetType: 'reconciliation', targetId: run.id, after: { days } });
    recordEvent(tx, 'ReconciliationRequested', { trigger: 'manual', runId: run.id });
    return { reconciliation: runView(run) };
  });
}

/** Runs, newest first; `unacknowledged`: only those with differences or a failure not yet marked 確認済み. */
export async function listReconciliations(orm: Orm, page: number, perPage: number, unacknowledged = false) {
  const em = orm.em.fork();
  const where = unacknowledged ? NEEDS_ATTENTION : {};
  const [runs, total] = await em.findAndCount(ReconciliationRun, where, {
    orderBy: { createdAt: 'desc', id: 'desc' },
    limit: perPage,
    offset: (page - 1) * perPage,
  });
  const open = await openFindingCounts(
    em as Em,
    runs.map((run) => run.id),
  );
  return { reconciliations: runs.map((run) => runView(run, open.get(run.id) ?? 0)), total, page, per_page: perPage };
}

/**
 * 確認済み: an administrator has seen what a run found (or that it failed); it leaves the admin menu.
 * Audited; marking a run twice keeps the first mark. A run with nothing to look at is a 409.
 */
export async function acknowledgeReconciliation(orm: Orm, actor: Actor, id: string, note: string | undefined) {
  const em = orm.em.fork() as Em;
  return transact(em, async (tx) => {
    const row = await kysely(tx)
      .selectFrom('reconciliation_runs')
      .select('id')
      .where('id', '=', id)
      .forUpdate()
      .executeTakeFirst();
    if (!row) throw new AppError('not_found', RUN_NOT_FOUND);
    const run = await tx.findOneOrFail(ReconciliationRun, { id });
    if (run.acknowledgedAt) return { reconciliation: runView(run), message: 'すでに確認済みです。' };
    if (!needsAttention(run)) {
      throw new AppError('conflict', 'この照合には確認が必要な差異や失敗がありません。');
    }
    run.acknowledgedAt = new Date();
    run.acknowledgedBy = actor.email;
    run.acknowledgementNote = note || null;
    recordAudit(tx, actor, {
      action: 'reconciliation.acknowledge',
      targetType: 'reconciliation',
      targetId: id,
      before: { state: run.state, findings: run.findings, acknowledged: false },
      after: { acknowledged: true, ...(note ? { note } : {}) },
    });
    await tx.flush();
    return { reconciliation: runView(run), message: '確認済みにしました。' };
  });
}

/** One run with its findings, each linked to the sale's buyer and the event to replay. */
export async function reconciliationDetail(orm: Orm, id: string) {
  const em = orm.em.fork() as Em;
  const run = await em.findOne(ReconciliationRun, { id });
  if (!run) throw new AppError('not_found', RUN_NOT_FOUND);
  const findings = await em.find(PaymentFinding, { runId: id }, { orderBy: { kind: 'asc', createdAt: 'asc' } });
  const saleIds = findings.flatMap((finding) => (finding.saleId ? [finding.saleId] : []));
  const sales = new Map((await salePaymentsOfIds(em, saleIds)).map((sale) => [sale.id, sale]));
  const unsold = findings.flatMap((f) => (f.kind === 'paid_without_sale' && f.stripeSessionId ? [f.stripeSessionId] : []));
  const refunds = await flaggedRefundViews(em, unsold);
  return {
    reconciliation: runView(run, findings.filter((finding) => !finding.acknowledgedAt).length),
    findings: findings.map((finding) => {
      const sale = finding.saleId ? sales.get(finding.saleId) : undefined;
      return {
        id: finding.id,
        kind: finding.kind,
        kind_label: FINDING_LABELS[finding.kind as FindingKind] ?? finding.kind,
        stripe_session_id: finding.stripeSessionId ?? null,
        payment_intent_id: finding.paymentIntentId ?? null,
        sale_id: finding.saleId ?? null,
        sale_order_number: sale?.orderNumber ?? null,
        sale_user_id: sale?.userId ?? null,
        sale_buyer_email: sale?.buyerEmail ?? null,
        event_id: finding.eventId ?? null,
        stripe_amount: finding.stripeAmount ?? null,
        stripe_currency: finding.stripeCurrency ?? null,
        our_amount: finding.ourAmount ?? null,
        our_currency: finding.ourCurrency ?? null,
        detail: finding.detail,
        ...findingAcknowledgement(finding),
        refund: (finding.kind === 'paid_without_sale' && refunds.get(finding.stripeSessionId ?? '')) || null,
      };
    }),
  };
}
