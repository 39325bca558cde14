import { OnlineMigration } from '../src/db/online-migration.ts';

export class Migration20261122093223_module_owned_references extends OnlineMigration {

  override name = 'Migration20261122093223_module_owned_references';

  override up(): void | Promise<void> {
    this.addSql(`alter table "checkout_sessions" drop constraint "checkout_sessions_license_id_foreign";`);
    this.addSql(`alter table "checkout_sessions" drop constraint "checkout_sessions_user_id_foreign";`);

    this.addSql(`alter table "sales" drop constraint "sales_license_id_foreign";`);
    this.addSql(`alter table "sales" drop constraint "sales_user_id_foreign";`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "checkout_sessions" add constraint "checkout_sessions_license_id_foreign" foreign key ("license_id") references "licenses" ("id") on update no action on delete no action;`);
    this.addSql(`alter table "checkout_sessions" add constraint "checkout_sessions_user_id_foreign" foreign key ("user_id") references "users" ("id") on update no action on delete set null;`);

    this.addSql(`alter table "sales" add constraint "sales_license_id_foreign" foreign key ("license_id") references "licenses" ("id") on update no action on delete no action;`);
    this.addSql(`alter table "sales" add constraint "sales_user_id_foreign" foreign key ("user_id") references "users" ("id") on update no action on delete set null;`);
  }

}
