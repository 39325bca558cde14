import { OnlineMigration } from '../src/db/online-migration.ts';

export class Migration20261122094742_search_and_list_indexes extends OnlineMigration {

  override name = 'Migration20261122094742_search_and_list_indexes';

  override up(): void | Promise<void> {
    // Trusted since PostgreSQL 13: a database owner may create it; PGlite loads it (src/db/orm.ts).
    this.addSql(`create extension if not exists pg_trgm;`);
    this.addSql(`drop index "sales_license_id_index";`);
    this.addSql(`create index "sales_paid_at_index" on "sales" ("paid_at" desc, "id" desc);`);
    this.addSql(`create index "sales_license_paid_at_index" on "sales" ("license_id", "paid_at" desc, "id" desc);`);
    this.addSql(`create index "sales_status_paid_at_index" on "sales" ("status", "paid_at" desc, "id" desc);`);
    this.addSql(`create index "sales_buyer_name_key_trgm_index" on "sales" using gin ("buyer_name_key" gin_trgm_ops);`);
    this.addSql(`create index "sales_buyer_email_trgm_index" on "sales" using gin ("buyer_email" gin_trgm_ops);`);

    this.addSql(`create index "users_created_at_index" on "users" ("created_at", "id");`);
    this.addSql(`create index "users_name_key_trgm_index" on "users" using gin ("name_key" gin_trgm_ops);`);
    this.addSql(`create index "users_email_trgm_index" on "users" using gin ("email" gin_trgm_ops);`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index "sales_paid_at_index";`);
    this.addSql(`drop index "sales_license_paid_at_index";`);
    this.addSql(`drop index "sales_status_paid_at_index";`);
    this.addSql(`drop index "sales_buyer_name_key_trgm_index";`);
    this.addSql(`drop index "sales_buyer_email_trgm_index";`);
    this.addSql(`create index "sales_license_id_index" on "sales" ("license_id");`);

    this.addSql(`drop index "users_created_at_index";`);
    this.addSql(`drop index "users_name_key_trgm_index";`);
    this.addSql(`drop index "users_email_trgm_index";`);
  }

}
