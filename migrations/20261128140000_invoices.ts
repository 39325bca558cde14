import { OnlineMigration } from '../src/db/online-migration.ts';

export class Migration20261128140000_invoices extends OnlineMigration {

  override name = 'Migration20261128140000_invoices';

  override up(): void | Promise<void> {
    // Every 御請求書 issued (issue 34 review): its number can be quoted later, and the same invoice
    // downloaded again (same order, same 宛名) keeps its number and date.
    this.addSql(`create table "invoices" ("id" serial primary key, "invoice_number" varchar(30) not null, "order_number" varchar(20) not null, "user_id" varchar(255) null, "license_name" varchar(100) not null, "amount" integer not null, "addressee" varchar(200) not null, "due_at" timestamptz not null, "issued_at" timestamptz not null, "downloads" integer not null default 1, "last_downloaded_at" timestamptz not null);`);
    this.addSql(`alter table "invoices" add constraint "invoices_invoice_number_unique" unique ("invoice_number");`);
    this.addSql(`alter table "invoices" add constraint "invoices_order_addressee_unique" unique ("order_number", "addressee");`);
    this.addSql(`create index "invoices_user_id_index" on "invoices" ("user_id", "issued_at");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "invoices";`);
  }

}
