import type { Orm } from '../../db/orm.ts';
import { pendingKonbini } from './pending-konbini.ts';
import { listReconciliations } from './reconciliation-runs.ts';

/** The checkout module's part of GET /api/dashboard: what the payments screens list. */
export async function checkoutDashboard(orm: Orm) {
  const [konbini, flagged] = await Promise.all([pendingKonbini(orm, 'awaiting', 1, 1), listReconciliations(orm, 1, 1, true)]);
  return { konbini_awaiting: konbini.totals.awaiting, reconciliations_flagged: flagged.total };
}
