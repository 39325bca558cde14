import { OnlineMigration } from '../src/db/online-migration.ts';

export class Migration20261125141500_reconciliation_findings extends OnlineMigration {

  override name = 'Migration20261125141500_reconciliation_findings';

  override up(): void | Promise<void> {
    // A run that found differences or failed is told to the administrators once (`notified`: what the
    // digest said, 'findings' or 'failed') and stays on the admin menu until one of them marks it
    // 確認済み (`acknowledged_at`, by whom, with an optional note). reconciliation_runs is small.
    this.addSql(`alter table "reconciliation_runs" add column "notified" varchar(20) null, add column "acknowledged_at" timestamptz null, add column "acknowledged_by" varchar(254) null, add column "acknowledgement_note" varchar(500) null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "reconciliation_runs" drop column "acknowledgement_note", drop column "acknowledged_by", drop column "acknowledged_at", drop column "notified";`);
  }

}
