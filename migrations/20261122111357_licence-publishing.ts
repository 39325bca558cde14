import { OnlineMigration } from '../src/db/online-migration.ts';

export class Migration20261122111357_licence_publishing extends OnlineMigration {

  override name = 'Migration20261122111357_licence_publishing';

  override up(): void | Promise<void> {
    this.addSql(`alter table "licenses" add "published" boolean not null default true, add "checkout_started_at" timestamptz null;`);
    // Licences someone already started to buy can be hidden but never deleted.
    this.addSql(
      `update "licenses" l set "checkout_started_at" = c.first from (select "license_id", min("created_at") as first from "checkout_sessions" group by "license_id") c where c."license_id" = l."id";`,
    );
    this.addSql(
      `update "licenses" l set "checkout_started_at" = coalesce(l."checkout_started_at", s.first) from (select "license_id", min("paid_at") as first from "sales" group by "license_id") s where s."license_id" = l."id";`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "licenses" drop column "published", drop column "checkout_started_at";`);
  }

}
