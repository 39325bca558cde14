import { OnlineMigration } from '../src/db/online-migration.ts';

export class Migration20261126080000_sale_buyer_gone extends OnlineMigration {

  override name = 'Migration20261126080000_sale_buyer_gone';

  override up(): void | Promise<void> {
    // Why a sale's buyer account is gone: 退会 or deleted by an administrator (issue 24: the list said
    // 「（退会）」 for both). Nullable without a default: no rewrite of the 1,000,000-row table.
    this.addSql(`alter table "sales" add column "buyer_gone" varchar(16) null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "sales" drop column "buyer_gone";`);
  }

}
