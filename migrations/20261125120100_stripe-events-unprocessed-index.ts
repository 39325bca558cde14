import { OnlineMigration } from '../src/db/online-migration.ts';

export class Migration20261125120100_stripe_events_unprocessed_index extends OnlineMigration {

  override name = 'Migration20261125120100_stripe_events_unprocessed_index';

  override isTransactional(): boolean {
    return false;
  }

  override async up(): Promise<void> {
    // The payments inbox backlog (metrics, the operations view) is read at every scrape: only the
    // events not yet processed, a handful among a million.
    await this.addIndexConcurrently('stripe_events_unprocessed_index', 'on "stripe_events" ("received_at") where "processed_at" is null');
  }

  override down(): void | Promise<void> {
    this.addSql('drop index concurrently if exists "stripe_events_unprocessed_index";');
  }

}
