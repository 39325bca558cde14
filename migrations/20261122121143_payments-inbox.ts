import { OnlineMigration } from '../src/db/online-migration.ts';

export class Migration20261122121143_payments_inbox extends OnlineMigration {

  override name = 'Migration20261122121143_payments_inbox';

  override up(): void | Promise<void> {
    this.addSql(`create table "payment_findings" ("id" uuid not null, "run_id" uuid not null, "kind" varchar(40) not null, "stripe_session_id" varchar(255) null, "payment_intent_id" varchar(255) null, "sale_id" int null, "event_id" varchar(255) null, "stripe_amount" int null, "stripe_currency" varchar(3) null, "our_amount" int null, "our_currency" varchar(3) null, "detail" text not null, "created_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`create index "payment_findings_run_index" on "payment_findings" ("run_id");`);

    this.addSql(`create table "reconciliation_runs" ("id" uuid not null, "trigger" varchar(20) not null, "slot" varchar(40) null, "requested_by" varchar(254) null, "days" int not null, "state" varchar(20) not null default 'queued', "started_at" timestamptz null, "finished_at" timestamptz null, "sessions_checked" int not null default 0, "sales_checked" int not null default 0, "refunds_checked" int not null default 0, "findings" int not null default 0, "error" text null, "created_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`alter table "reconciliation_runs" add constraint "reconciliation_runs_slot_unique" unique ("slot");`);
    this.addSql(`create index "reconciliation_runs_created_at_index" on "reconciliation_runs" ("created_at" desc);`);

    this.addSql(`alter table "stripe_events" add "attempts" int not null default 0, add "failed_at" timestamptz null, add "last_error" text null, add "stripe_session_id" varchar(255) null;`);
    this.addSql(
      `update "stripe_events" set "stripe_session_id" = "payload"->'data'->'object'->>'id', "attempts" = case when "processed_at" is null then 0 else 1 end where "type" like 'checkout.session.%';`,
    );
    this.addSql(`create index "stripe_events_session_index" on "stripe_events" ("stripe_session_id");`);
    this.addSql(`create index "stripe_events_received_at_index" on "stripe_events" ("received_at" desc, "id" desc);`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "payment_findings" cascade;`);
    this.addSql(`drop table if exists "reconciliation_runs" cascade;`);

    this.addSql(`drop index "stripe_events_session_index";`);
    this.addSql(`drop index "stripe_events_received_at_index";`);
    this.addSql(`alter table "stripe_events" drop column "attempts", drop column "failed_at", drop column "last_error", drop column "stripe_session_id";`);
  }

}
