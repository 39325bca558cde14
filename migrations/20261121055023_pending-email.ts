import { OnlineMigration } from '../src/db/online-migration.ts';

export class Migration20261121055023_pending_email extends OnlineMigration {

  override name = 'Migration20261121055023_pending_email';

  override up(): void | Promise<void> {
    this.addSql(`alter table "users" add "pending_email" varchar(254) null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "users" drop column "pending_email";`);
  }

}
