import { OnlineMigration } from '../src/db/online-migration.ts';

export class Migration20261128100100_checkout_order_numbers_index extends OnlineMigration {

  override name = 'Migration20261128100100_checkout_order_numbers_index';

  override isTransactional(): boolean {
    return false;
  }

  override async up(): Promise<void> {
    // Built while the column is empty: the backfill and every new checkout are held to unique numbers.
    await this.addIndexConcurrently('checkout_sessions_order_number_unique', 'on "checkout_sessions" ("order_number")', {
      unique: true,
    });
    // The sweep's bank transfers awaiting payment (reminder and deadline): a handful among all checkouts.
    await this.addIndexConcurrently(
      'checkout_sessions_bank_transfer_index',
      `on "checkout_sessions" ("bank_transfer_expires_at") where "state" = 'awaiting_payment' and "bank_transfer_expires_at" is not null`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql('drop index concurrently if exists "checkout_sessions_bank_transfer_index";');
    this.addSql('drop index concurrently if exists "checkout_sessions_order_number_unique";');
  }

}
