import { OnlineMigration } from '../src/db/online-migration.ts';

/** Sales given their checkout's method and order time per statement: short row locks. */
const BATCH = 5_000;

export class Migration20261128104000_sale_payment_method extends OnlineMigration {

  override name = 'Migration20261128104000_sale_payment_method';

  // Batches commit one by one and the index is built CONCURRENTLY: sales keep being recorded.
  override isTransactional(): boolean {
    return false;
  }

  override async up(): Promise<void> {
    // A constant default: no rewrite of the table.
    await this.execute(`alter table "sales" add column if not exists "ordered_at" timestamptz null, add column if not exists "payment_method" varchar(32) not null default 'card';`);
    let after = 0;
    for (;;) {
      const rows = (await this.execute(
        `with batch as (select id from sales where id > ? order by id limit ${BATCH})
         , updated as (
           update sales s
              set ordered_at = c.created_at,
                  payment_method = case when c.konbini_expires_at is not null then 'konbini' else 'card' end
             from batch, checkout_sessions c
            where s.id = batch.id and c.id = s.checkout_session_id and s.ordered_at is null
           returning s.id)
         select max(id) as last from batch`,
        [after],
      )) as { last: number | null }[];
      const last = rows[0]?.last;
      if (!last) break;
      after = Number(last);
    }
    await this.addIndexConcurrently(
      'sales_payment_method_paid_at_index',
      'on "sales" ("payment_method", "paid_at" desc, "id" desc)',
    );
  }

  override down(): void | Promise<void> {
    this.addSql('drop index concurrently if exists "sales_payment_method_paid_at_index";');
    this.addSql('alter table "sales" drop column "ordered_at", drop column "payment_method";');
  }

}
