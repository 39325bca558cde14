import { OnlineMigration } from '../src/db/online-migration.ts';

export class Migration20261122093922_licence_issue_pipeline extends OnlineMigration {

  override name = 'Migration20261122093922_licence_issue_pipeline';

  override up(): void | Promise<void> {
    this.addSql(`create table "export_sales" ("export_id" uuid not null, "sale_id" int not null, primary key ("export_id", "sale_id"));`);
    this.addSql(`create index "export_sales_sale_id_index" on "export_sales" ("sale_id");`);

    this.addSql(`alter table "exports" add "requested_by_email" varchar(254) null, add "replace_unmappable" boolean not null default false, add "batch" boolean not null default false, add "license_name" varchar(100) null, add "total_rows" int null, add "sha256" varchar(64) null, add "started_at" timestamptz null, add "completed_at" timestamptz null, add "completed_by" varchar(254) null;`);
    this.addSql(`create index "exports_created_at_index" on "exports" ("created_at");`);

    this.addSql(`alter table "sales" add "buyer_name_key" text generated always as (lower(regexp_replace(normalize(buyer_last_name || buyer_first_name, NFKC), '\\s', '', 'g'))) stored null, add "batch_id" uuid null;`);
    this.addSql(`create index "sales_batch_id_index" on "sales" ("batch_id");`);

    this.addSql(`alter table "users" add "name_key" text generated always as (lower(regexp_replace(normalize(last_name || first_name, NFKC), '\\s', '', 'g'))) stored null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "export_sales" cascade;`);

    this.addSql(`drop index "exports_created_at_index";`);
    this.addSql(`alter table "exports" drop column "requested_by_email", drop column "replace_unmappable", drop column "batch", drop column "license_name", drop column "total_rows", drop column "sha256", drop column "started_at", drop column "completed_at", drop column "completed_by";`);

    this.addSql(`drop index "sales_batch_id_index";`);
    this.addSql(`alter table "sales" drop column "buyer_name_key", drop column "batch_id";`);

    this.addSql(`alter table "users" drop column "name_key";`);
  }

}
