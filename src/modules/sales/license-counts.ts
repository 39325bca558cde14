import { Hono } from 'hono';
import { type ChangeFeed, cached, tableCache } from '../../db/changes.ts';
import { countAll, db as kysely } from '../../db/kysely.ts';
import type { Em, Orm } from '../../db/orm.ts';
import type { AppEnv } from '../../http/context.ts';
import { permit } from '../../http/guards.ts';
import { salesDocs } from './responses.ts';

export interface LicenseSalesCount {
  license_id: number;
  /** Sales of the licence that stand (paid, not refunded). */
  count: number;
  /** Sales of the licence refunded since. */
  refunded_count: number;
}

const countsCache = (changes: ChangeFeed | undefined) =>
  tableCache<LicenseSalesCount[]>(changes, 'sales per licence', ['sales'], { max: 1, ttlMs: 10 * 60_000 });

/**
 * How many sales each licence has, for the administrators' licence list. Two grouped counts that read
 * indexes only (1,000,000 sales: sales_license_paid_at_index for all, the partial refunded_at index
 * for the few refunded), kept in memory until a sale changes (change notices, decision 0021).
 */
function salesCountsByLicense(orm: Orm, changes?: ChangeFeed): Promise<LicenseSalesCount[]> {
  return cached(countsCache(changes), 'all', async () => {
    const db = kysely(orm.em.fork() as Em);
    const [all, refunded] = await Promise.all([
      db
        .selectFrom('sales')
        .select((eb) => ['license_id', countAll(eb).as('n')])
        .groupBy('license_id')
        .execute(),
      db
        .selectFrom('sales')
        .select((eb) => ['license_id', countAll(eb).as('n')])
        .where('refunded_at', 'is not', null)
        .groupBy('license_id')
        .execute(),
    ]);
    const refunds = new Map(refunded.map((row) => [row.license_id, row.n]));
    return all
      .map((row) => {
        const back = refunds.get(row.license_id) ?? 0;
        return { license_id: row.license_id, count: row.n - back, refunded_count: back };
      })
      .sort((a, b) => a.license_id - b.license_id);
  });
}

/** GET /api/sales/license-counts: `{ counts: [{ license_id, count, refunded_count }] }`, licences with sales only. */
export const licenseCountRoutes = new Hono<AppEnv>().get(
  '/sales/license-counts',
  salesDocs.licenseCounts,
  permit('sales:read'),
  async (c) => c.json({ counts: await salesCountsByLicense(c.var.deps.orm, c.var.deps.changes) }),
);
