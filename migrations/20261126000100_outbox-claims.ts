import { OnlineMigration } from '../src/db/online-migration.ts';

export class Migration20261126000100_outbox_claims extends OnlineMigration {

  override name = 'Migration20261126000100_outbox_claims';

  override up(): void | Promise<void> {
    // The relay claims rows for a while instead of holding them locked in a transaction while it
    // talks to Redis (issue 22). Nullable without a default: no rewrite of the outbox.
    this.addSql(`alter table "outbox_events" add column "claimed_until" timestamptz null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "outbox_events" drop column "claimed_until";`);
  }

}
