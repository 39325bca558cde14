import { OnlineMigration } from '../src/db/online-migration.ts';

export class Migration20261126020000_receipt_custom_addressee extends OnlineMigration {

  override name = 'Migration20261126020000_receipt_custom_addressee';

  override up(): void | Promise<void> {
    // 領収書 (issue 21): a typed 宛名 with the honorific the member chose (様 or 御中), and the 但し書き
    // (null: the default 「ライセンス代として」). Nullable columns: no rewrite, no backfill.
    this.addSql(
      `alter table "sale_receipts" add column "addressee_text" varchar(60) null, add column "honorific" varchar(4) null, add column "proviso" varchar(40) null;`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "sale_receipts" drop column "proviso", drop column "honorific", drop column "addressee_text";`);
  }

}
