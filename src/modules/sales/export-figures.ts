import type { Em } from '../../db/orm.ts';

/**
 * CSV exports waiting, being built, retrying after a failed attempt (queued or running again with the
 * last failure's reason kept) and failed for good (they stay until an administrator runs them again).
 */
export async function exportFigures(em: Em): Promise<{ queued: number; running: number; retrying: number; failed: number }> {
  const [row] = await em.execute<{ queued: number; running: number; retrying: number; failed: number }[]>(
    `select count(*) filter (where state = 'queued')::int as queued,
            count(*) filter (where state = 'running')::int as running,
            count(*) filter (where state in ('queued', 'running') and last_error is not null)::int as retrying,
            count(*) filter (where state = 'failed')::int as failed
       from exports where state in ('queued', 'running', 'failed')`,
  );
  return { queued: row?.queued ?? 0, running: row?.running ?? 0, retrying: row?.retrying ?? 0, failed: row?.failed ?? 0 };
}
