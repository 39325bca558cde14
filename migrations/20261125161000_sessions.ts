import { OnlineMigration } from '../src/db/online-migration.ts';

export class Migration20261125161000_sessions extends OnlineMigration {

  override name = 'Migration20261125161000_sessions';

  override up(): void | Promise<void> {
    // When a session was last used (the member's sessions list; administrators' idle time). A nullable
    // column without a default: no rewrite of sessions (docs/decisions/0028-session-lifetime.md).
    this.addSql(`alter table "sessions" add column "last_active_at" timestamptz null;`);
    // The browsers each account has signed in from (a signed device cookie's id): a sign-in from one
    // not listed here mails 新しい端末からのログイン. New and empty, so its indexes need no CONCURRENTLY.
    this.addSql(`create table "known_devices" ("user_id" varchar(255) not null, "device_id" varchar(64) not null, "user_agent" text null, "created_at" timestamptz not null default now(), "last_seen_at" timestamptz not null default now(), constraint "known_devices_pkey" primary key ("user_id", "device_id"));`);
    this.addSql(`alter table "known_devices" add constraint "known_devices_user_id_foreign" foreign key ("user_id") references "users" ("id") on update cascade on delete cascade;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "known_devices" cascade;`);
    this.addSql(`alter table "sessions" drop column "last_active_at";`);
  }

}
