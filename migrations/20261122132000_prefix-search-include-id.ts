import { OnlineMigration } from '../src/db/online-migration.ts';

export class Migration20261122132000_prefix_search_include_id extends OnlineMigration {

  override name = 'Migration20261122132000_prefix_search_include_id';

  // A short name search (「佐藤」) is counted from these indexes alone: each carries the sale id.
  override up(): void | Promise<void> {
    for (const column of ['buyer_name_key', 'buyer_first_key', 'buyer_email']) {
      const index = column === 'buyer_email' ? 'sales_buyer_email_prefix_index' : `sales_${column}_prefix_index`;
      this.addSql(`drop index if exists "${index}";`);
      this.addSql(`create index "${index}" on "sales" ("${column}" text_pattern_ops) include ("id");`);
    }
  }

  override down(): void | Promise<void> {
    for (const column of ['buyer_name_key', 'buyer_first_key', 'buyer_email']) {
      const index = column === 'buyer_email' ? 'sales_buyer_email_prefix_index' : `sales_${column}_prefix_index`;
      this.addSql(`drop index if exists "${index}";`);
      this.addSql(`create index "${index}" on "sales" ("${column}" text_pattern_ops);`);
    }
  }

}
