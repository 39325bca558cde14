import { OnlineMigration } from '../src/db/online-migration.ts';

export class Migration20261121060505_purchases extends OnlineMigration {

  override name = 'Migration20261121060505_purchases';

  override up(): void | Promise<void> {
    this.addSql(`create table "stripe_events" ("id" varchar(255) not null, "type" varchar(100) not null, "payload" jsonb not null, "received_at" timestamptz not null, "processed_at" timestamptz null, "outcome" text null, primary key ("id"));`);

    this.addSql(`create table "sales" ("id" serial primary key, "user_id" varchar(255) null, "buyer_last_name" varchar(50) not null, "buyer_first_name" varchar(50) not null, "buyer_email" varchar(254) not null, "buyer_affiliation" smallint null, "buyer_affiliation_name" varchar(100) not null default '', "buyer_affiliation_other" varchar(100) null, "license_id" int not null, "license_name" varchar(100) not null, "amount" int not null, "currency" varchar(3) not null, "checkout_session_id" uuid not null, "stripe_session_id" varchar(255) not null, "stripe_payment_intent_id" varchar(255) null, "receipt_url" text null, "paid_at" timestamptz not null, "refunded_at" timestamptz null, "status" smallint not null default 0, "created_at" timestamptz not null, "updated_at" timestamptz not null);`);
    this.addSql(`create index "sales_user_id_index" on "sales" ("user_id");`);
    this.addSql(`create index "sales_license_id_index" on "sales" ("license_id");`);
    this.addSql(`alter table "sales" add constraint "sales_checkout_session_id_unique" unique ("checkout_session_id");`);
    this.addSql(`alter table "sales" add constraint "sales_stripe_session_id_unique" unique ("stripe_session_id");`);
    this.addSql(`create index "sales_payment_intent_index" on "sales" ("stripe_payment_intent_id");`);

    this.addSql(`create table "checkout_sessions" ("id" uuid not null, "user_id" varchar(255) null, "license_id" int not null, "amount" int not null, "currency" varchar(3) not null, "stripe_session_id" varchar(255) null, "payment_intent_id" varchar(255) null, "state" varchar(20) not null default 'open', "flag_reason" text null, "distribution" boolean not null default true, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`create index "checkout_sessions_user_id_index" on "checkout_sessions" ("user_id");`);
    this.addSql(`create index "checkout_sessions_license_id_index" on "checkout_sessions" ("license_id");`);
    this.addSql(`alter table "checkout_sessions" add constraint "checkout_sessions_stripe_session_id_unique" unique ("stripe_session_id");`);

    this.addSql(`alter table "sales" add constraint "sales_user_id_foreign" foreign key ("user_id") references "users" ("id") on delete set null;`);
    this.addSql(`alter table "sales" add constraint "sales_license_id_foreign" foreign key ("license_id") references "licenses" ("id");`);

    this.addSql(`alter table "checkout_sessions" add constraint "checkout_sessions_user_id_foreign" foreign key ("user_id") references "users" ("id") on delete set null;`);
    this.addSql(`alter table "checkout_sessions" add constraint "checkout_sessions_license_id_foreign" foreign key ("license_id") references "licenses" ("id");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "stripe_events" cascade;`);
    this.addSql(`drop table if exists "sales" cascade;`);
    this.addSql(`drop table if exists "checkout_sessions" cascade;`);
  }

}
