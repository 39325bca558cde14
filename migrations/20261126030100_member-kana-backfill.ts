import { OnlineMigration } from '../src/db/online-migration.ts';

/** Rows rewritten per statement: each commits on its own, so no row stays locked for long. */
const BATCH = 2_000;

/**
 * Fills the search and order keys of the members already there (the trigger of 20261126030000 keeps
 * them from then on) and their last sign-in as their browsers last recorded it, in batches by id,
 * each its own short transaction; then builds the search and 五十音 indexes CONCURRENTLY and drops the
 * indexes of the old name search that nothing reads any more (docs/decisions/0032-kana-and-name-folding.md).
 */
export class Migration20261126030100_member_kana_backfill extends OnlineMigration {

  override name = 'Migration20261126030100_member_kana_backfill';

  override isTransactional(): boolean {
    return false;
  }

  override async up(): Promise<void> {
    let after = '';
    for (;;) {
      // Setting search_key fires the trigger, which computes both keys from the names. The next batch
      // starts after this one's greatest id, as PostgreSQL orders them (its collation, not ours).
      const [row] = (await this.execute(
        `with batch as (select id from "users" where id > ? order by id limit ${BATCH}),
         done as (
           update "users" u set search_key = null,
             last_sign_in_at = coalesce(u.last_sign_in_at, (select max(d.last_seen_at) from known_devices d where d.user_id = u.id))
           from batch where u.id = batch.id returning u.id)
         select max(id) as last from done`,
        [after],
      )) as { last: string | null }[];
      if (!row?.last) break;
      after = row.last;
    }
    await this.addIndexConcurrently('users_search_key_trgm_index', 'on "users" using gin ("search_key" gin_trgm_ops)');
    await this.addIndexConcurrently('users_search_grams_index', 'on "users" using gin ("search_grams")');
    await this.addIndexConcurrently('users_kana_sort_index', 'on "users" ("kana_sort", "id")');
    this.addSql('drop index concurrently if exists "users_name_key_trgm_index";');
    this.addSql('drop index concurrently if exists "users_name_key_prefix_index";');
    this.addSql('drop index concurrently if exists "users_first_key_prefix_index";');
  }

  override down(): void | Promise<void> {
    this.addSql('drop index concurrently if exists "users_search_key_trgm_index";');
    this.addSql('drop index concurrently if exists "users_kana_sort_index";');
    this.addSql('drop index concurrently if exists "users_search_grams_index";');
    this.addSql('create index concurrently if not exists "users_name_key_trgm_index" on "users" using gin ("name_key" gin_trgm_ops);');
    this.addSql('create index concurrently if not exists "users_name_key_prefix_index" on "users" ("name_key" text_pattern_ops);');
    this.addSql('create index concurrently if not exists "users_first_key_prefix_index" on "users" ("first_key" text_pattern_ops);');
  }

}
