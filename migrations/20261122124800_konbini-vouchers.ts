import { OnlineMigration } from '../src/db/online-migration.ts';

export class Migration20261122124800_konbini_vouchers extends OnlineMigration {

  override name = 'Migration20261122124800_konbini_vouchers';

  override up(): void | Promise<void> {
    // The konbini voucher Stripe issued for a pending payment: its page, deadline and codes per chain.
    this.addSql(`alter table "checkout_sessions" add "konbini_voucher_url" text null, add "konbini_expires_at" timestamptz null, add "konbini_stores" jsonb null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "checkout_sessions" drop column "konbini_voucher_url", drop column "konbini_expires_at", drop column "konbini_stores";`);
  }

}
