import { OnlineMigration } from '../src/db/online-migration.ts';

export class Migration20261122125000_sale_receipts extends OnlineMigration {

  override name = 'Migration20261122125000_sale_receipts';

  override up(): void | Promise<void> {
    // One row per sale whose 領収書 addressee was chosen or which was issued: the addressee fixed at the
    // first issue, how many times it was issued (2nd and later say 再発行) and the payment method.
    this.addSql(`create table "sale_receipts" ("sale_id" int not null, "addressee_kind" varchar(16) not null, "addressee" varchar(120) null, "payment_method" varchar(32) null, "issue_count" int not null default 0, "first_issued_at" timestamptz null, "last_issued_at" timestamptz null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("sale_id"));`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "sale_receipts" cascade;`);
  }

}
