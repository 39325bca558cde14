import type { Expression, SqlBool } from 'kysely';
import { db as kysely } from '../../db/kysely.ts';
import type { Em } from '../../db/orm.ts';

/**
 * CSV exports waiting, being built, waiting again after a failed attempt (the last failure's reason
 * kept) and failed for good (they stay until an administrator runs them again).
 */
export async function exportFigures(
  em: Em,
): Promise<{ queued: number; running: number; retrying: number; failed: number; runningOn: string[] }> {
  const row = await kysely(em)
    .selectFrom('exports')
    .select((eb) => {
      const counted = (where: Expression<SqlBool>) => eb.cast<number>(eb.fn.countAll().filterWhere(where), 'integer');
      return [
        // Each export in one figure: a retry waiting is `retrying`, not also `queued`.
        counted(eb.and([eb('state', '=', 'queued'), eb('last_error', 'is', null)])).as('queued'),
        counted(eb('state', '=', 'running')).as('running'),
        counted(eb.and([eb('state', '=', 'queued'), eb('last_error', 'is not', null)])).as('retrying'),
        counted(eb('state', '=', 'failed')).as('failed'),
        // The processes (INSTANCE_ID) building exports now, for the operations screen.
        eb.fn
          .coalesce(
            eb.fn
              .agg<string[]>('array_agg', [eb.ref('worker_instance')])
              .distinct()
              .filterWhere(eb.and([eb('state', '=', 'running'), eb('worker_instance', 'is not', null)])),
            eb.val<string[]>([]),
          )
          .as('running_on'),
      ];
    })
    .where('state', 'in', ['queued', 'running', 'failed'])
    .executeTakeFirst();
  return {
    queued: row?.queued ?? 0,
    running: row?.running ?? 0,
    retrying: row?.retrying ?? 0,
    failed: row?.failed ?? 0,
    runningOn: (row?.running_on ?? []).toSorted(),
  };
}
