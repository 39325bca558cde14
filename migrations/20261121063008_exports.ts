import { OnlineMigration } from '../src/db/online-migration.ts';

export class Migration20261121063008_exports extends OnlineMigration {

  override name = 'Migration20261121063008_exports';

  override up(): void | Promise<void> {
    this.addSql(`create table "exports" ("id" uuid not null, "requested_by" varchar(255) not null, "filters" jsonb not null, "encoding" varchar(16) not null default 'utf-8', "state" varchar(16) not null default 'queued', "row_count" int not null default 0, "file_name" varchar(100) null, "error" text null, "created_at" timestamptz not null, "finished_at" timestamptz null, primary key ("id"));`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "exports" cascade;`);
  }

}
