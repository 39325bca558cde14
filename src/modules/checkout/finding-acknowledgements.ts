import { countAll, db as kysely } from '../../db/kysely.ts';
import type { Em, Orm } from '../../db/orm.ts';
import { transact } from '../../events/outbox.ts';
import { AppError } from '../../http/errors.ts';
import { type Actor, recordAudit } from '../audit/index.ts';
import { PaymentFinding, ReconciliationRun } from './entities/reconciliation.entity.ts';

export const FINDING_NOT_FOUND = '照合の差異が見つかりませんでした。';

/** A finding's 確認済み mark, as the findings list shows it. */
export const findingAcknowledgement = (finding: PaymentFinding) => ({
  acknowledged_at: finding.acknowledgedAt ?? null,
  acknowledged_by: finding.acknowledgedBy ?? null,
  acknowledgement_note: finding.acknowledgementNote ?? null,
});

/** How many findings of each run nobody has marked 確認済み yet. */
export async function openFindingCounts(em: Em, runIds: readonly string[]): Promise<Map<string, number>> {
  if (runIds.length === 0) return new Map();
  const rows = await kysely(em)
    .selectFrom('payment_findings')
    .select((eb) => ['run_id', countAll(eb).as('n')])
    .where('run_id', 'in', runIds)
    .where('acknowledged_at', 'is', null)
    .groupBy('run_id')
    .execute();
  return new Map(rows.map((row) => [row.run_id, row.n]));
}

/**
 * A run (locked by the caller) whose findings are all 確認済み now is 確認済み too: it leaves the admin
 * menu. True when this call closed it.
 */
export async function closeRunWhenDone(tx: Em, runId: string, by: string, at: Date): Promise<boolean> {
  const open = await kysely(tx)
    .selectFrom('payment_findings')
    .select((eb) => countAll(eb).as('n'))
    .where('run_id', '=', runId)
    .where('acknowledged_at', 'is', null)
    .executeTakeFirst();
  const run = await tx.findOneOrFail(ReconciliationRun, { id: runId });
  const closes = (open?.n ?? 0) === 0 && !run.acknowledgedAt && run.notified === 'findings';
  if (closes) {
    run.acknowledgedAt = at;
    run.acknowledgedBy = by;
    run.acknowledgementNote = 'すべての差異を確認済み';
  }
  return closes;
}

/**
 * 確認済み on one difference, with what the administrator did about it (the note is required: a
 * difference is money). Audited. When it was the run's last open one, the run is 確認済み too and
 * leaves the admin menu (the `unacknowledged` filter). Marking a finding twice keeps the first mark.
 */
export async function acknowledgeFinding(orm: Orm, actor: Actor, findingId: string, note: string) {
  const em = orm.em.fork() as Em;
  return transact(em, async (tx) => {
    // The run first, locked: two administrators marking its last two findings at once agree on which was last.
    const row = await kysely(tx)
      .selectFrom('reconciliation_runs as r')
      .select('r.id as run_id')
      .where('r.id', '=', (eb) => eb.selectFrom('payment_findings as f').select('f.run_id').where('f.id', '=', findingId))
      .forUpdate()
      .executeTakeFirst();
    if (!row) throw new AppError('not_found', FINDING_NOT_FOUND);
    const finding = await tx.findOneOrFail(PaymentFinding, { id: findingId });
    if (finding.acknowledgedAt) {
      return {
        finding: { id: finding.id, ...findingAcknowledgement(finding) },
        run_acknowledged: false,
        message: 'すでに確認済みです。',
      };
    }
    const now = new Date();
    finding.acknowledgedAt = now;
    finding.acknowledgedBy = actor.email;
    finding.acknowledgementNote = note;
    await tx.flush();
    const closesRun = await closeRunWhenDone(tx, row.run_id, actor.email, now);
    recordAudit(tx, actor, {
      action: 'payment_finding.acknowledge',
      targetType: 'payment_finding',
      targetId: finding.id,
      before: { finding_kind: finding.kind, acknowledged: false },
      after: { acknowledged: true, note, ...(closesRun ? { run_acknowledged: true } : {}) },
    });
    await tx.flush();
    return {
      finding: { id: finding.id, ...findingAcknowledgement(finding) },
      run_acknowledged: closesRun,
      message: closesRun ? '確認済みにしました。この照合の差異はすべて確認済みです。' : '確認済みにしました。',
    };
  });
}
