import { OnlineMigration } from '../src/db/online-migration.ts';

export class Migration20261128071430_two_factor_locks extends OnlineMigration {

  override name = 'Migration20261128071430_two_factor_locks';

  override up(): void | Promise<void> {
    // Two-factor escalation (issue 30 item 8): a new, small table; no existing table is rewritten.
    this.addSql(`create table "two_factor_locks" ("user_id" varchar(255) not null, "lockouts" int not null default 0, "locked_at" timestamptz null, "updated_at" timestamptz not null default now(), primary key ("user_id"));`);
    this.addSql(`alter table "two_factor_locks" add constraint "two_factor_locks_user_id_foreign" foreign key ("user_id") references "users" ("id") on update cascade on delete cascade;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "two_factor_locks" cascade;`);
  }

}
