import { Migration, TSMigrationGenerator } from '@mikro-orm/migrations';

/** An ALTER TABLE queues every later query behind it: waiting at most this long keeps reads moving (docs/decisions/0025-online-migrations.md). */
export const MIGRATION_LOCK_TIMEOUT_MS = 500;

const LOCK_NOT_AVAILABLE = '55P03';

export function isLockTimeout(error: unknown): boolean {
  for (let e = error as { code?: unknown; cause?: unknown; message?: unknown } | undefined, depth = 0; e && depth < 5; depth++) {
    if (e.code === LOCK_NOT_AVAILABLE || (typeof e.message === 'string' && e.message.includes('lock timeout'))) return true;
    e = e.cause as typeof e;
  }
  return false;
}

const quoteIdent = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** The architecture test checks every migration extends it; big-table indexes use addIndexConcurrently outside a transaction. */
export abstract class OnlineMigration extends Migration {
  #limited = false;

  override reset(): void {
    super.reset();
    this.#limited = false;
  }

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

  /** An interrupted earlier build leaves an invalid index of that name: it is dropped and built again. */
  protected async addIndexConcurrently(name: string, definition: string, options: { unique?: boolean } = {}) {
    if (this.isTransactional()) throw new Error(`${this.name}: CREATE INDEX CONCURRENTLY needs isTransactional() = false`);
    // SQL as text: migration machinery reading the server's catalogue.
    const [row] = (await this.execute('select i.indisvalid as valid from pg_index i where i.indexrelid = to_regclass(?)::oid', [
      quoteIdent(name),
    ])) as { valid?: boolean }[];
    if (row && row.valid === false) this.addSql(`drop index concurrently if exists ${quoteIdent(name)}`);
    this.addSql(`create ${options.unique ? 'unique ' : ''}index concurrently if not exists ${quoteIdent(name)} ${definition}`);
  }
}

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
