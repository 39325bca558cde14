import { OnlineMigration } from '../src/db/online-migration.ts';

export class Migration20261121064828_drop_outbox_last_error extends OnlineMigration {

  override name = 'Migration20261121064828_drop_outbox_last_error';

  override up(): void | Promise<void> {
    this.addSql(`alter table "outbox_events" drop column "last_error";`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "outbox_events" add "last_error" text null;`);
  }

}
