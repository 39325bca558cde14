import { OnlineMigration } from '../src/db/online-migration.ts';

export class Migration20261122101624_short_name_search extends OnlineMigration {

  override name = 'Migration20261122101624_short_name_search';

  override up(): void | Promise<void> {
    this.addSql(`alter table "sales" add "buyer_first_key" text generated always as (lower(regexp_replace(normalize(buyer_first_name, NFKC), '\\s', '', 'g'))) stored null;`);
    this.addSql(`create index "sales_buyer_name_key_prefix_index" on "sales" ("buyer_name_key" text_pattern_ops);`);
    this.addSql(`create index "sales_buyer_first_key_prefix_index" on "sales" ("buyer_first_key" text_pattern_ops);`);
    this.addSql(`create index "sales_buyer_email_prefix_index" on "sales" ("buyer_email" text_pattern_ops);`);

    this.addSql(`alter table "users" add "first_key" text generated always as (lower(regexp_replace(normalize(first_name, NFKC), '\\s', '', 'g'))) stored null;`);
    this.addSql(`create index "users_name_key_prefix_index" on "users" ("name_key" text_pattern_ops);`);
    this.addSql(`create index "users_first_key_prefix_index" on "users" ("first_key" text_pattern_ops);`);
    this.addSql(`create index "users_email_prefix_index" on "users" ("email" text_pattern_ops);`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index "sales_buyer_name_key_prefix_index";`);
    this.addSql(`drop index "sales_buyer_first_key_prefix_index";`);
    this.addSql(`drop index "sales_buyer_email_prefix_index";`);
    this.addSql(`alter table "sales" drop column "buyer_first_key";`);

    this.addSql(`drop index "users_name_key_prefix_index";`);
    this.addSql(`drop index "users_first_key_prefix_index";`);
    this.addSql(`drop index "users_email_prefix_index";`);
    this.addSql(`alter table "users" drop column "first_key";`);
  }

}
