import { OnlineMigration } from '../src/db/online-migration.ts';

export class Migration20261126010000_order_numbers extends OnlineMigration {

  override name = 'Migration20261126010000_order_numbers';

  override up(): void | Promise<void> {
    // 注文番号 (docs/decisions/0030-order-numbers.md). A nullable column without a default: no rewrite
    // of a million sales. The next two migrations build its unique index concurrently and fill it.
    //
    // It stays nullable in the schema although every sale has a number once they ran: SET NOT NULL
    // would need every process to write one, and during a rolling start the previous release's
    // workers still record sales without it. The release after this one backfills those few (the same
    // batches) and then adds NOT NULL online (a CHECK added NOT VALID, validated, then SET NOT NULL,
    // which uses the check instead of scanning under its lock).
    this.addSql(`alter table "sales" add column "order_number" varchar(14) null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "sales" drop column "order_number";`);
  }

}
