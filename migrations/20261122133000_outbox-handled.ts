import { OnlineMigration } from '../src/db/online-migration.ts';

export class Migration20261122133000_outbox_handled extends OnlineMigration {

  override name = 'Migration20261122133000_outbox_handled';

  override up(): void | Promise<void> {
    // The sweeper (docs/decisions/0019-sweeper.md): an event is done once every queue it routes to has
    // acknowledged it (`handled_queues`, then `handled_at`); events published before this are taken as handled.
    this.addSql(`alter table "outbox_events" add column "handled_at" timestamptz null, add column "handled_queues" text[] not null default '{}';`);
    this.addSql(`update "outbox_events" set "handled_at" = "published_at" where "published_at" is not null;`);
    this.addSql(`create index "outbox_events_unhandled_index" on "outbox_events" ("published_at") where handled_at is null;`);
    // A running export's job says it is alive; one that stops saying so is failed by the sweeper.
    this.addSql(`alter table "exports" add column "heartbeat_at" timestamptz null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "exports" drop column "heartbeat_at";`);
    this.addSql(`drop index if exists "outbox_events_unhandled_index";`);
    this.addSql(`alter table "outbox_events" drop column "handled_queues", drop column "handled_at";`);
  }

}
