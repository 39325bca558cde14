import { OnlineMigration } from '../src/db/online-migration.ts';

export class Migration20261126060000_license_display_order extends OnlineMigration {

  override name = 'Migration20261126060000_license_display_order';

  override up(): void | Promise<void> {
    // The administrators' display order of the catalogue (issue 24 item 7), smallest first. The licences
    // keep the order they had (by id) until someone moves one, and a new one — however it is inserted —
    // comes last (a sequence as the default); a move swaps values. licences is a small table.
    this.addSql(`create sequence "licenses_sort_order_seq" as integer;`);
    this.addSql(`alter table "licenses" add column "sort_order" integer null;`);
    this.addSql(`update "licenses" set "sort_order" = "id";`);
    this.addSql(`select setval('licenses_sort_order_seq', greatest((select max("id") from "licenses"), 1));`);
    this.addSql(`alter table "licenses" alter column "sort_order" set default nextval('licenses_sort_order_seq'), alter column "sort_order" set not null;`);
    this.addSql(`alter sequence "licenses_sort_order_seq" owned by "licenses"."sort_order";`);
    this.addSql(`create index "licenses_sort_order_index" on "licenses" ("sort_order", "id");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index "licenses_sort_order_index";`);
    this.addSql(`alter table "licenses" drop column "sort_order";`);
    this.addSql(`drop sequence if exists "licenses_sort_order_seq";`);
  }

}
