import { OnlineMigration } from '../src/db/online-migration.ts';

export class Migration20261122104137_licence_status_index extends OnlineMigration {

  override name = 'Migration20261122104137_licence_status_index';

  override up(): void | Promise<void> {
    this.addSql(`create index "sales_license_status_paid_at_index" on "sales" ("license_id", "status", "paid_at" desc, "id" desc);`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index "sales_license_status_paid_at_index";`);
  }

}
