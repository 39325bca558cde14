import { OnlineMigration } from '../src/db/online-migration.ts';

export class Migration20261128110000_seats_sale_periods_quotations extends OnlineMigration {

  override name = 'Migration20261128110000_seats_sale_periods_quotations';

  override up(): void | Promise<void> {
    // Seats and sale periods per licence (issue 34 item 6): nullable columns, no rewrite of the table.
    this.addSql(`alter table "licenses" add column "capacity" integer null, add column "sale_starts_at" timestamptz null, add column "sale_ends_at" timestamptz null;`);
    this.addSql(`alter table "licenses" add constraint "licenses_capacity_check" check ("capacity" is null or "capacity" >= 1) not valid;`);
    this.addSql(`alter table "licenses" validate constraint "licenses_capacity_check";`);
    this.addSql(`alter table "licenses" add constraint "licenses_sale_period_check" check ("sale_starts_at" is null or "sale_ends_at" is null or "sale_starts_at" < "sale_ends_at") not valid;`);
    this.addSql(`alter table "licenses" validate constraint "licenses_sale_period_check";`);
    // Until when an open checkout holds its seat (the Stripe session's expires_at); null on older rows.
    this.addSql(`alter table "checkout_sessions" add column "hold_until" timestamptz null;`);
    // 御見積書 (item 4): each issue recorded so its number can be quoted.
    this.addSql(`create table "quotations" ("id" serial primary key, "quotation_number" varchar(20) not null, "user_id" varchar(255) null, "license_id" integer not null, "license_name" varchar(100) not null, "amount" integer not null, "issued_at" timestamptz not null, "expires_at" timestamptz not null);`);
    this.addSql(`alter table "quotations" add constraint "quotations_quotation_number_unique" unique ("quotation_number");`);
    this.addSql(`create index "quotations_user_id_index" on "quotations" ("user_id", "issued_at");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "quotations";`);
    this.addSql(`alter table "checkout_sessions" drop column "hold_until";`);
    this.addSql(`alter table "licenses" drop constraint "licenses_sale_period_check", drop constraint "licenses_capacity_check";`);
    this.addSql(`alter table "licenses" drop column "capacity", drop column "sale_starts_at", drop column "sale_ends_at";`);
  }

}
