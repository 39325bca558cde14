import { OnlineMigration } from '../src/db/online-migration.ts';

export class Migration20261126020200_konbini_reminder_index extends OnlineMigration {

  override name = 'Migration20261126020200_konbini_reminder_index';

  override isTransactional(): boolean {
    return false;
  }

  override async up(): Promise<void> {
    // Every sweep reads the pending konbini payments not yet reminded: a handful among all checkouts.
    await this.addIndexConcurrently(
      'checkout_sessions_konbini_reminder_index',
      `on "checkout_sessions" ("konbini_expires_at") where "state" = 'awaiting_payment' and "konbini_reminded_at" is null`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql('drop index concurrently if exists "checkout_sessions_konbini_reminder_index";');
  }

}
