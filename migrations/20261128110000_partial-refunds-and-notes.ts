import { OnlineMigration } from '../src/db/online-migration.ts';

export class Migration20261128110000_partial_refunds_and_notes extends OnlineMigration {

  override name = 'Migration20261128110000_partial_refunds_and_notes';

  override up(): void | Promise<void> {
    this.addSql(`create table "sale_refunds" ("id" serial primary key, "sale_id" int not null, "amount" int not null, "reason" varchar(200) null, "requested_by" varchar(254) null, "requested_at" timestamptz null, "refunded_at" timestamptz null, "stripe_refund_id" varchar(255) null, "created_at" timestamptz not null);`);
    this.addSql(`create index "sale_refunds_sale_id_index" on "sale_refunds" ("sale_id");`);
    this.addSql(`create index "sale_refunds_refunded_at_index" on "sale_refunds" ("refunded_at") where "refunded_at" is not null;`);
    // A constant default: no rewrite of the table.
    this.addSql(`alter table "sales" add column "refunded_amount" int not null default 0;`);
    // Every refund so far was whole: one confirmed refund each (refunded sales are few).
    this.addSql(`insert into "sale_refunds" ("sale_id", "amount", "reason", "requested_by", "requested_at", "refunded_at", "created_at")
      select "id", "amount", "refund_reason", "refund_requested_by", "refund_requested_at", "refunded_at", "refunded_at" from "sales" where "refunded_at" is not null;`);
    this.addSql(`update "sales" set "refunded_amount" = "amount" where "refunded_at" is not null;`);

    this.addSql(`create table "sale_notes" ("id" serial primary key, "sale_id" int not null, "body" text not null, "author_id" varchar(255) not null, "author_email" varchar(254) not null, "created_at" timestamptz not null);`);
    this.addSql(`create index "sale_notes_sale_id_index" on "sale_notes" ("sale_id", "created_at");`);
    this.addSql(`create table "user_notes" ("id" serial primary key, "user_id" varchar(255) not null, "body" text not null, "author_id" varchar(255) not null, "author_email" varchar(254) not null, "created_at" timestamptz not null);`);
    this.addSql(`create index "user_notes_user_id_index" on "user_notes" ("user_id", "created_at");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "user_notes";`);
    this.addSql(`drop table if exists "sale_notes";`);
    this.addSql(`alter table "sales" drop column "refunded_amount";`);
    this.addSql(`drop table if exists "sale_refunds";`);
  }

}
