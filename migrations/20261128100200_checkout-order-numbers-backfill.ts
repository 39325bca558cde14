import { OnlineMigration } from '../src/db/online-migration.ts';

const BATCH = 5_000;
const ATTEMPTS = 10;
const UNIQUE_VIOLATION = '23505';

/** A checkout that made a sale takes the sale's number; any other a new one, as src/modules/sales/order-number.ts draws it. */
const NUMBERED = `select b.id, coalesce(
    (select s.order_number from sales s where s.checkout_session_id = b.id),
    'LS-' || to_char(b.created_at at time zone 'Asia/Tokyo', 'YYMM') || '-' ||
    (select string_agg(substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', get_byte(b.random, i) % 32 + 1, 1), '' order by i)
       from generate_series(0, 5) i)) as order_number
  from (select id, created_at, uuid_send(gen_random_uuid()) as random from checkout_sessions
         where order_number is null order by id limit ${BATCH} for update skip locked) b`;

const isUniqueViolation = (error: unknown) => {
  for (let e = error as { code?: unknown; cause?: unknown } | undefined, depth = 0; e && depth < 5; depth++) {
    if (e.code === UNIQUE_VIOLATION) return true;
    e = e.cause as typeof e;
  }
  return false;
};

export class Migration20261128100200_checkout_order_numbers_backfill extends OnlineMigration {

  override name = 'Migration20261128100200_checkout_order_numbers_backfill';

  // Batches commit on their own (decision 0025): row locks of one batch at a time.
  override isTransactional(): boolean {
    return false;
  }

  override async up(): Promise<void> {
    for (let attempt = 1; ; ) {
      try {
        const result = (await this.execute(
          `with n as (${NUMBERED}) update checkout_sessions c set order_number = n.order_number from n where c.id = n.id returning c.id`,
        )) as unknown[];
        if (result.length === 0) return;
      } catch (error) {
        // A random draw met an existing number: the batch is drawn again.
        if (!isUniqueViolation(error) || ++attempt > ATTEMPTS) throw error;
      }
    }
  }

  override down(): void | Promise<void> {
    // The numbers go with the column (the first migration's down).
  }

}
