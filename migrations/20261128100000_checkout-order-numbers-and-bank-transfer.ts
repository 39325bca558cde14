import { OnlineMigration } from '../src/db/online-migration.ts';

export class Migration20261128100000_checkout_order_numbers_and_bank_transfer extends OnlineMigration {

  override name = 'Migration20261128100000_checkout_order_numbers_and_bank_transfer';

  override up(): void | Promise<void> {
    // The order number from the moment of ordering, and a bank transfer's virtual account and deadline
    // (issue 34): nullable columns, no rewrite of the table.
    this.addSql(`alter table "checkout_sessions" add column "order_number" varchar(20) null, add column "bank_transfer" jsonb null, add column "bank_transfer_expires_at" timestamptz null, add column "bank_transfer_reminded_at" timestamptz null;`);
    // One Stripe Customer per member (customer_balance needs one), created once and kept.
    this.addSql(`create table "checkout_customers" ("user_id" varchar(255) not null, "stripe_customer_id" varchar(255) not null, "created_at" timestamptz not null, constraint "checkout_customers_pkey" primary key ("user_id"));`);
    this.addSql(`alter table "checkout_customers" add constraint "checkout_customers_stripe_customer_id_unique" unique ("stripe_customer_id");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "checkout_customers";`);
    this.addSql(`alter table "checkout_sessions" drop column "order_number", drop column "bank_transfer", drop column "bank_transfer_expires_at", drop column "bank_transfer_reminded_at";`);
  }

}
