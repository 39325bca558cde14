import { OnlineMigration } from '../src/db/online-migration.ts';

export class Migration20261128120100_member_purchase_figures_indexes extends OnlineMigration {

  override name = 'Migration20261128120100_member_purchase_figures_indexes';

  override isTransactional(): boolean {
    return false;
  }

  override async up(): Promise<void> {
    // The member list sorted by each figure, one page from the index however deep (user-search.ts).
    await this.addIndexConcurrently('users_purchase_count_index', 'on "users" ("purchase_count", "id")');
    await this.addIndexConcurrently('users_paid_total_index', 'on "users" ("paid_total", "id")');
    await this.addIndexConcurrently('users_last_purchase_at_index', 'on "users" ("last_purchase_at", "id")');
    // Newest first with those who never bought last.
    await this.addIndexConcurrently('users_last_purchase_at_desc_index', 'on "users" ("last_purchase_at" desc nulls last, "id" desc)');
  }

  override down(): void | Promise<void> {
    this.addSql('drop index concurrently if exists "users_purchase_count_index";');
    this.addSql('drop index concurrently if exists "users_paid_total_index";');
    this.addSql('drop index concurrently if exists "users_last_purchase_at_index";');
    this.addSql('drop index concurrently if exists "users_last_purchase_at_desc_index";');
  }

}
