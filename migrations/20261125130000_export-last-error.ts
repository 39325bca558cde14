import { OnlineMigration } from '../src/db/online-migration.ts';

export class Migration20261125130000_export_last_error extends OnlineMigration {

  override name = 'Migration20261125130000_export_last_error';

  override up(): void | Promise<void> {
    // The last failed attempt of an export's job, kept while BullMQ retries it: the screen says
    // 「作成に失敗しています（再試行中）」 with the reason instead of 作成中 (issue 23).
    this.addSql(`alter table "exports" add column "last_error" text null, add column "last_error_at" timestamptz null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "exports" drop column "last_error_at", drop column "last_error";`);
  }

}
