import { OnlineMigration } from '../src/db/online-migration.ts';

export class Migration20261128091116_export_worker_instance extends OnlineMigration {

  override name = 'Migration20261128091116_export_worker_instance';

  override up(): void | Promise<void> {
    // Which process builds an export (INSTANCE_ID): a nullable column, no rewrite of the table.
    this.addSql(`alter table "exports" add column "worker_instance" varchar(255) null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "exports" drop column "worker_instance";`);
  }

}
