import { OnlineMigration } from '../src/db/online-migration.ts';

export class Migration20261128135855_legal_notices extends OnlineMigration {

  override name = 'Migration20261128135855_legal_notices';

  override up(): void | Promise<void> {
    // A constant default: no table rewrite (PostgreSQL 11+); the announcements table is small.
    this.addSql(`alter table "announcements" add "kind" varchar(16) not null default 'marketing', add "revision" varchar(32) null;`);
    this.addSql(`create index "announcements_revision_index" on "announcements" ("revision", "created_at") where "kind" = 'legal_notice';`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index "announcements_revision_index";`);
    this.addSql(`alter table "announcements" drop column "kind", drop column "revision";`);
  }

}
