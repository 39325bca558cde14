import { OnlineMigration } from '../src/db/online-migration.ts';

export class Migration20261126040000_sales_refunded_at_index extends OnlineMigration {

  override name = 'Migration20261126040000_sales_refunded_at_index';

  override isTransactional(): boolean {
    return false;
  }

  override async up(): Promise<void> {
    // 売上集計 counts the refunds of a period by refunded_at: only refunded sales, a few among a million.
    await this.addIndexConcurrently('sales_refunded_at_index', 'on "sales" ("refunded_at") where "refunded_at" is not null');
  }

  override down(): void | Promise<void> {
    this.addSql('drop index concurrently if exists "sales_refunded_at_index";');
  }

}
