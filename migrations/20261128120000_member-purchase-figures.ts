import { OnlineMigration } from '../src/db/online-migration.ts';

export class Migration20261128120000_member_purchase_figures extends OnlineMigration {

  override name = 'Migration20261128120000_member_purchase_figures';

  override up(): void | Promise<void> {
    // The member list's purchase figures, kept by accounts from SalePaid/SaleRefunded (decision 0045).
    this.addSql(`alter table "users" add column "purchase_count" int not null default 0, add column "paid_total" bigint not null default 0, add column "last_purchase_at" timestamptz null;`);
    this.addSql(`update "users" u set "purchase_count" = f.n, "paid_total" = f.total, "last_purchase_at" = f.last from (select "user_id", count(*)::int as n, sum("amount") as total, max("paid_at") as last from "sales" where "user_id" is not null and "refunded_at" is null group by "user_id") f where f."user_id" = u."id";`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "users" drop column "purchase_count", drop column "paid_total", drop column "last_purchase_at";`);
  }

}
