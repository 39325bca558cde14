import { OnlineMigration } from '../src/db/online-migration.ts';

export class Migration20261125120000_outbox_request_id extends OnlineMigration {

  override name = 'Migration20261125120000_outbox_request_id';

  override up(): void | Promise<void> {
    // The request (or job) that recorded an event, carried into the jobs it causes (src/lib/request-context.ts).
    // Nullable without a default: a change of the catalogue only, no table rewrite.
    this.addSql(`alter table "outbox_events" add column "request_id" varchar(64) null, add column "trace" jsonb null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "outbox_events" drop column "request_id", drop column "trace";`);
  }

}
