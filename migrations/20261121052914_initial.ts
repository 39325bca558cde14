import { OnlineMigration } from '../src/db/online-migration.ts';

export class Migration20261121052914_initial extends OnlineMigration {

  override name = 'Migration20261121052914_initial';

  override up(): void | Promise<void> {
    this.addSql(`create table "mail_deliveries" ("id" uuid not null, "key" varchar(200) not null, "template" varchar(64) not null, "recipient" varchar(254) not null, "subject" varchar(300) not null, "message_id" varchar(255) null, "sent_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`alter table "mail_deliveries" add constraint "mail_deliveries_key_unique" unique ("key");`);

    this.addSql(`create table "outbox_events" ("id" uuid not null, "name" varchar(64) not null, "payload" jsonb not null, "occurred_at" timestamptz not null, "published_at" timestamptz null, "attempts" int not null default 0, "last_error" text null, primary key ("id"));`);
    this.addSql(`create index "outbox_events_unpublished_index" on "outbox_events" ("occurred_at") where "published_at" is null;`);

    this.addSql(`create table "users" ("id" varchar(255) not null, "email" varchar(254) not null, "email_verified" boolean not null default false, "name" varchar(120) not null, "last_name" varchar(50) not null default '', "first_name" varchar(50) not null default '', "image" text null, "role" varchar(20) not null default 'user', "banned" boolean null default false, "ban_reason" text null, "ban_expires" timestamptz null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`create unique index "users_email_lower_unique" on "users" (lower("email"));`);

    this.addSql(`create table "sessions" ("id" varchar(255) not null, "token" varchar(255) not null, "user_id" varchar(255) not null, "expires_at" timestamptz not null, "ip_address" text null, "user_agent" text null, "impersonated_by" text null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`alter table "sessions" add constraint "sessions_token_unique" unique ("token");`);
    this.addSql(`create index "sessions_user_id_index" on "sessions" ("user_id");`);

    this.addSql(`create table "accounts" ("id" varchar(255) not null, "account_id" text not null, "provider_id" text not null, "user_id" varchar(255) not null, "access_token" text null, "refresh_token" text null, "id_token" text null, "access_token_expires_at" timestamptz null, "refresh_token_expires_at" timestamptz null, "scope" text null, "password" text null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`create index "accounts_user_id_index" on "accounts" ("user_id");`);

    this.addSql(`create table "verifications" ("id" varchar(255) not null, "identifier" text not null, "value" text not null, "expires_at" timestamptz not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`create index "verifications_identifier_index" on "verifications" ("identifier");`);

    this.addSql(`alter table "sessions" add constraint "sessions_user_id_foreign" foreign key ("user_id") references "users" ("id") on delete cascade;`);

    this.addSql(`alter table "accounts" add constraint "accounts_user_id_foreign" foreign key ("user_id") references "users" ("id") on delete cascade;`);
  }

}
