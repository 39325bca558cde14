import { OnlineMigration } from '../src/db/online-migration.ts';

export class Migration20261126060100_finding_acknowledgements extends OnlineMigration {

  override name = 'Migration20261126060100_finding_acknowledgements';

  override up(): void | Promise<void> {
    // One difference of a reconciliation run marked 確認済み by an administrator, with what was done
    // about it (issue 24 item 8). payment_findings is small; nullable columns rewrite nothing.
    this.addSql(`alter table "payment_findings" add column "acknowledged_at" timestamptz null, add column "acknowledged_by" varchar(254) null, add column "acknowledgement_note" varchar(500) null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "payment_findings" drop column "acknowledgement_note", drop column "acknowledged_by", drop column "acknowledged_at";`);
  }

}
