import { OnlineMigration } from '../src/db/online-migration.ts';

export class Migration20261126020100_konbini_reminder extends OnlineMigration {

  override name = 'Migration20261126020100_konbini_reminder';

  override up(): void | Promise<void> {
    // When the reminder mail of a pending konbini payment was put on record: once per checkout, set
    // by the sweep in the transaction that records the mail's event (issue 21). Nullable: no rewrite.
    this.addSql(`alter table "checkout_sessions" add column "konbini_reminded_at" timestamptz null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "checkout_sessions" drop column "konbini_reminded_at";`);
  }

}
