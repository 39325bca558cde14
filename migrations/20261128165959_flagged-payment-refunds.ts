import { OnlineMigration } from '../src/db/online-migration.ts';

export class Migration20261128165959_flagged_payment_refunds extends OnlineMigration {

  override name = 'Migration20261128165959_flagged_payment_refunds';

  override up(): void | Promise<void> {
    // Nullable columns and a constant default: no table rewrite.
    this.addSql(`alter table "checkout_sessions" add "refund_requested_at" timestamptz null, add "refund_requested_by" varchar(254) null, add "refund_reason" varchar(200) null, add "refunded_at" timestamptz null, add "refunded_amount" int not null default 0, add "stripe_refund_id" varchar(255) null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "checkout_sessions" drop column "refund_requested_at", drop column "refund_requested_by", drop column "refund_reason", drop column "refunded_at", drop column "refunded_amount", drop column "stripe_refund_id";`);
  }

}
