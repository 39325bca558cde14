import { OnlineMigration } from '../src/db/online-migration.ts';

export class Migration20261128170000_quotation_addressee extends OnlineMigration {

  override name = 'Migration20261128170000_quotation_addressee';

  override up(): void | Promise<void> {
    // The 宛名 with its honorific as printed, so an administrator can draw the same 御見積書 again;
    // null on quotations issued before it was kept (nullable: no rewrite of the table).
    this.addSql(`alter table "quotations" add column "addressee" varchar(200) null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "quotations" drop column "addressee";`);
  }

}
