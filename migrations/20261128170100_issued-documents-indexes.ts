import { OnlineMigration } from '../src/db/online-migration.ts';

export class Migration20261128170100_issued_documents_indexes extends OnlineMigration {

  override name = 'Migration20261128170100_issued_documents_indexes';

  override isTransactional(): boolean {
    return false;
  }

  override async up(): Promise<void> {
    // 見積書・請求書 (back office): newest first, a page from the index however deep.
    await this.addIndexConcurrently('quotations_issued_at_index', 'on "quotations" ("issued_at", "id")');
    await this.addIndexConcurrently('invoices_issued_at_index', 'on "invoices" ("issued_at", "id")');
    // A number typed from its start (`like 'QT-2611%'`), whatever the database's collation.
    await this.addIndexConcurrently('quotations_number_prefix_index', 'on "quotations" ("quotation_number" text_pattern_ops)');
    await this.addIndexConcurrently('invoices_order_number_prefix_index', 'on "invoices" ("order_number" text_pattern_ops)');
    // The 宛名 searched by its words in any width (`normalize(…, NFKC) ilike '%消防局%'`).
    await this.addIndexConcurrently(
      'quotations_addressee_trgm_index',
      'on "quotations" using gin ((normalize("addressee", NFKC)) gin_trgm_ops)',
    );
    await this.addIndexConcurrently('invoices_addressee_trgm_index', 'on "invoices" using gin ((normalize("addressee", NFKC)) gin_trgm_ops)');
  }

  override down(): void | Promise<void> {
    this.addSql('drop index concurrently if exists "invoices_addressee_trgm_index";');
    this.addSql('drop index concurrently if exists "quotations_addressee_trgm_index";');
    this.addSql('drop index concurrently if exists "invoices_order_number_prefix_index";');
    this.addSql('drop index concurrently if exists "quotations_number_prefix_index";');
    this.addSql('drop index concurrently if exists "invoices_issued_at_index";');
    this.addSql('drop index concurrently if exists "quotations_issued_at_index";');
  }

}
