import { OnlineMigration } from '../src/db/online-migration.ts';

export class Migration20261126010100_order_numbers_index extends OnlineMigration {

  override name = 'Migration20261126010100_order_numbers_index';

  override isTransactional(): boolean {
    return false;
  }

  override async up(): Promise<void> {
    // Built while the column is still empty (NULLs never clash), so the backfill that follows and the
    // sales recorded meanwhile are held to unique numbers; exact look-ups (q=, the payments inbox) use it.
    await this.addIndexConcurrently('sales_order_number_unique', 'on "sales" ("order_number")', { unique: true });
  }

  override down(): void | Promise<void> {
    this.addSql('drop index concurrently if exists "sales_order_number_unique";');
  }

}
