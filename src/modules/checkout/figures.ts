import type { Em } from '../../db/orm.ts';

/** Stripe events in the payments inbox not yet turned into sales: waiting, and failed (see /admin/payments). */
export async function paymentsInboxFigures(em: Em): Promise<{ unprocessed: number; failed: number }> {
  const [row] = await em.execute<{ unprocessed: number; failed: number }[]>(
    `select count(*) filter (where failed_at is null)::int as unprocessed,
            count(*) filter (where failed_at is not null)::int as failed
       from stripe_events where processed_at is null`,
  );
  return { unprocessed: row?.unprocessed ?? 0, failed: row?.failed ?? 0 };
}
