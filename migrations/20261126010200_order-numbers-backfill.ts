import { OnlineMigration } from '../src/db/online-migration.ts';

/** Sales numbered per statement: short row locks, a statement of well under a second on the bench's table. */
const BATCH = 5_000;
/** How often one sale's number is drawn again after a clash. */
const ATTEMPTS = 10;
const UNIQUE_VIOLATION = '23505';

/**
 * The number of a sale as src/modules/sales/order-number.ts makes it — `LS-`, the Japan year and
 * month of payment, 6 characters of Crockford's base32 — with PostgreSQL's strong random source
 * (gen_random_uuid: bytes 0–5 are random; 256 is a multiple of 32, so every character is equally likely).
 */
const NUMBERED = `select b.id, 'LS-' || to_char(b.paid_at at time zone 'Asia/Tokyo', 'YYMM') || '-' ||
    (select string_agg(substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', get_byte(b.random, i) % 32 + 1, 1), '' order by i)
       from generate_series(0, 5) i) as order_number
  from (select id, paid_at, uuid_send(gen_random_uuid()) as random from sales
         where id > ? and id <= ? and order_number is null for update skip locked) b`;

const isUniqueViolation = (error: unknown) => {
  for (let e = error as { code?: unknown; cause?: unknown } | undefined, depth = 0; e && depth < 5; depth++) {
    if (e.code === UNIQUE_VIOLATION || String((e as Error).message ?? '').includes('sales_order_number_unique')) return true;
    e = e.cause as typeof e;
  }
  return false;
};

export class Migration20261126010200_order_numbers_backfill extends OnlineMigration {

  override name = 'Migration20261126010200_order_numbers_backfill';

  // Each batch commits on its own (no transaction around a million rows): readers and writers of
  // sales wait for no more than one batch's row locks, and an interrupted backfill resumes where the
  // numbers stop.
  override isTransactional(): boolean {
    return false;
  }

  override async up(): Promise<void> {
    for (let pass = 0; pass < 3; pass++) {
      const [range] = (await this.execute(
        'select coalesce(min(id), 0)::bigint as low, coalesce(max(id), 0)::bigint as high from sales where order_number is null',
      )) as { low: string | number; high: string | number }[];
      const low = Number(range?.low ?? 0);
      const high = Number(range?.high ?? 0);
      if (!high) return;
      for (let from = low - 1; from < high; from += BATCH) {
        await this.numberBatch(from, Math.min(from + BATCH, high));
      }
    }
  }

  /**
   * Numbers the unnumbered sales with ids in (after, upTo]. A clash with an existing number (a unique
   * violation: rare, but a month of a million sales makes a few per batch) splits the range in halves
   * until the one row is drawn again.
   */
  private async numberBatch(after: number, upTo: number): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        await this.execute(
          `update sales s set order_number = n.order_number from (${NUMBERED}) n where s.id = n.id and s.order_number is null`,
          [after, upTo],
        );
        return;
      } catch (error) {
        if (!isUniqueViolation(error)) throw error;
        if (upTo - after > 1) {
          const middle = after + Math.floor((upTo - after) / 2);
          await this.numberBatch(after, middle);
          await this.numberBatch(middle, upTo);
          return;
        }
        if (attempt >= ATTEMPTS) throw error;
      }
    }
  }

  override down(): void | Promise<void> {
    // Numbers once given are quoted by members: going back drops the column (the first migration's down).
  }

}
