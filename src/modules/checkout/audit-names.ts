import { db as kysely } from '../../db/kysely.ts';
import type { Em } from '../../db/orm.ts';
import { isUuid } from '../../http/path-ids.ts';
import { japanDateTime } from '../../lib/japan-time.ts';
import { FINDING_LABELS } from './reconciliation.ts';

const minute = (at: string | Date) => japanDateTime(at).slice(0, 16);

/** The audit log's target column for a reconciliation run: 「2026/11/28 03:00 の照合（過去7日）」. */
export async function reconciliationNames(em: Em, ids: readonly string[]): Promise<ReadonlyMap<string, string>> {
  const uuids = ids.filter((id) => isUuid(id));
  if (uuids.length === 0) return new Map();
  const rows = await kysely(em)
    .selectFrom('reconciliation_runs')
    .select(['id', 'started_at', 'created_at', 'days'])
    .where('id', 'in', uuids)
    .execute();
  return new Map(rows.map((row) => [row.id, `${minute(row.started_at ?? row.created_at)} の照合（過去${row.days}日）`]));
}

/** A finding: its kind and the run it came from. */
export async function findingNames(em: Em, ids: readonly string[]): Promise<ReadonlyMap<string, string>> {
  const uuids = ids.filter((id) => isUuid(id));
  if (uuids.length === 0) return new Map();
  const rows = await kysely(em)
    .selectFrom('payment_findings as f')
    .innerJoin('reconciliation_runs as r', 'r.id', 'f.run_id')
    .select(['f.id', 'f.kind', 'r.started_at', 'r.created_at'])
    .where('f.id', 'in', uuids)
    .execute();
  return new Map(
    rows.map((row) => [
      row.id,
      `${(FINDING_LABELS as Record<string, string>)[row.kind] ?? '差異'}（${minute(row.started_at ?? row.created_at)} の照合）`,
    ]),
  );
}
