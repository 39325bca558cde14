import { Migration, TSMigrationGenerator } from '@mikro-orm/migrations';

/**
 * How long one migration statement may wait for a table lock. A statement that needs an ACCESS
 * EXCLUSIVE lock (ALTER TABLE) queues behind running queries, and every query after it queues behind
 * it: waiting at most this long keeps reads of `sales` and `users` moving. The migration then rolls
 * back and is tried again (src/db/orm.ts, docs/decisions/0025-online-migrations.md).
 */
export const MIGRATION_LOCK_TIMEOUT_MS = 500;

/** The SQLSTATE of "canceling statement due to lock timeout". */
const LOCK_NOT_AVAILABLE = '55P03';

/** Whether `error` (or what it wraps) is PostgreSQL giving up on a lock after `lock_timeout`. */
export function isLockTimeout(error: unknown): boolean {
  for (let e = error as { code?: unknown; cause?: unknown; message?: unknown } | undefined, depth = 0; e && depth < 5; depth++) {
    if (e.code === LOCK_NOT_AVAILABLE || (typeof e.message === 'string' && e.message.includes('lock timeout'))) return true;
    e = e.cause as typeof e;
  }
  return false;
}

const quoteIdent = (name: string) => `"${name.replaceAll('"', '""')}"`;

/**
 * The base of every migration in `migrations/` (the architecture test checks it; `npm run
 * db:migration:create` writes it). A transactional migration runs with `SET LOCAL lock_timeout`, so a
 * DDL statement never holds a queue of readers behind it for long. A migration that builds an index
 * on a big table overrides `isTransactional()` to return false and uses `addIndexConcurrently`,
 * which neither blocks writes nor reads while it builds.
 */
export abstract class OnlineMigration extends Migration {
  #limited = false;

  override reset(): void {
    super.reset();
    this.#limited = false;
  }

  /** Statements run from `up()` with `this.execute()` wait for locks no longer than `addSql` ones. */
  override async execute(sql: Parameters<Migration['execute']>[0], params?: unknown[]) {
    if (this.isTransactional() && !this.#limited) {
      await super.execute(`set local lock_timeout = ${MIGRATION_LOCK_TIMEOUT_MS}`);
      this.#limited = true;
    }
    return super.execute(sql, params);
  }

  override getQueries() {
    const queries = super.getQueries();
    if (!this.isTransactional()) return queries;
    return [`set local lock_timeout = ${MIGRATION_LOCK_TIMEOUT_MS}`, ...queries];
  }

  /**
   * `CREATE [UNIQUE] INDEX CONCURRENTLY` for a non-transactional migration. An earlier build that was
   * interrupted leaves an invalid index of that name: it is dropped and built again.
   * `definition` is what follows the index name, e.g. `on "sales" ("license_id", "paid_at")`.
   */
  protected async addIndexConcurrently(name: string, definition: string, options: { unique?: boolean } = {}) {
    if (this.isTransactional()) throw new Error(`${this.name}: CREATE INDEX CONCURRENTLY needs isTransactional() = false`);
    // SQL as text: migration machinery reading the server's catalogue (migrations are written as SQL).
    const [row] = (await this.execute('select i.indisvalid as valid from pg_index i where i.indexrelid = to_regclass(?)::oid', [
      quoteIdent(name),
    ])) as { valid?: boolean }[];
    if (row && row.valid === false) this.addSql(`drop index concurrently if exists ${quoteIdent(name)}`);
    this.addSql(`create ${options.unique ? 'unique ' : ''}index concurrently if not exists ${quoteIdent(name)} ${definition}`);
  }
}

/** `npm run db:migration:create` writes migrations that extend OnlineMigration. */
export class OnlineMigrationGenerator extends TSMigrationGenerator {
  override generateMigrationFile(className: string, diff: { up: string[]; down: string[] }): string {
    return super
      .generateMigrationFile(className, diff)
      .replace(
        "import { Migration } from '@mikro-orm/migrations';",
        "import { OnlineMigration } from '../src/db/online-migration.ts';",
      )
      .replace(`extends Migration {`, 'extends OnlineMigration {');
  }
}
