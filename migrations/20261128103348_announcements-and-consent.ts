import { OnlineMigration } from '../src/db/online-migration.ts';

export class Migration20261128103348_announcements_and_consent extends OnlineMigration {

  override name = 'Migration20261128103348_announcements_and_consent';

  override up(): void | Promise<void> {
    // New tables only: nothing existing is locked or rewritten.
    this.addSql(`create table "announcements" ("id" uuid not null, "subject" varchar(150) not null, "body" text not null, "license_id" int null, "state" varchar(16) not null default 'queued', "created_by" varchar(255) null, "created_by_email" varchar(254) null, "batch" int not null default 0, "started_at" timestamptz null, "finished_at" timestamptz null, "cancelled_at" timestamptz null, "created_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`create index "announcements_created_at_index" on "announcements" ("created_at" desc, "id");`);

    this.addSql(`create table "announcement_recipients" ("announcement_id" uuid not null, "user_id" varchar(255) not null, "status" varchar(16) not null default 'pending', "attempts" int not null default 0, "claimed_at" timestamptz null, "sent_at" timestamptz null, "error" text null, primary key ("announcement_id", "user_id"));`);
    this.addSql(`create index "announcement_recipients_status_index" on "announcement_recipients" ("announcement_id", "status");`);

    this.addSql(`create table "consent_changes" ("id" uuid not null, "user_id" varchar(255) not null, "distribution" boolean not null, "source" varchar(20) not null, "created_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`create index "consent_changes_user_id_index" on "consent_changes" ("user_id", "created_at");`);

    this.addSql(`create table "unsubscribe_tokens" ("token" varchar(64) not null, "user_id" varchar(255) not null, "created_at" timestamptz not null default now(), primary key ("token"));`);
    this.addSql(`alter table "unsubscribe_tokens" add constraint "unsubscribe_tokens_user_id_unique" unique ("user_id");`);
    this.addSql(`alter table "unsubscribe_tokens" add constraint "unsubscribe_tokens_user_id_foreign" foreign key ("user_id") references "users" ("id") on delete cascade;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "announcements" cascade;`);
    this.addSql(`drop table if exists "announcement_recipients" cascade;`);
    this.addSql(`drop table if exists "consent_changes" cascade;`);
    this.addSql(`drop table if exists "unsubscribe_tokens" cascade;`);
  }

}
