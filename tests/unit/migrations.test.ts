import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isLockTimeout, OnlineMigrationGenerator } from '../../src/db/online-migration.ts';

const dir = resolve(import.meta.dirname, '../../migrations');
const files = readdirSync(dir).filter((name) => name.endsWith('.ts'));

/** Tables that grow with the shop: locking them for a table rewrite or a blocking index build stops it. */
const BIG_TABLES = [
  'sales',
  'users',
  'sessions',
  'audit_logs',
  'mail_deliveries',
  'outbox_events',
  'stripe_events',
  'checkout_sessions',
];
/** Migrations before this one ran on the first release's empty or small tables. */
const ONLINE_SINCE = '20261125000000';

describe('migrations (docs/decisions/0025-online-migrations.md)', () => {
  it.each(files)('%s extends OnlineMigration', (file) => {
    const text = readFileSync(join(dir, file), 'utf8');
    expect(text).toContain("import { OnlineMigration } from '../src/db/online-migration.ts';");
    expect(text).toMatch(/extends OnlineMigration \{/);
    expect(text).not.toMatch(/from '@mikro-orm\/migrations'/);
  });

  it('new migrations build indexes on big tables CONCURRENTLY and add constraints NOT VALID first', () => {
    const problems: string[] = [];
    for (const file of files.filter((name) => name.slice(0, 14) >= ONLINE_SINCE)) {
      const text = readFileSync(join(dir, file), 'utf8').replace(/\s+/g, ' ').toLowerCase();
      for (const table of BIG_TABLES) {
        const onTable = `on "${table}"`;
        for (const match of text.matchAll(/create (unique )?index (?!concurrently)[^;`']*/g)) {
          if (match[0].includes(onTable)) problems.push(`${file}: ${match[0].slice(0, 80)} (use addIndexConcurrently)`);
        }
        for (const match of text.matchAll(new RegExp(`alter table "${table}" add constraint [^;\`']*`, 'g'))) {
          const sql = match[0];
          if (/foreign key|check/.test(sql) && !sql.includes('not valid'))
            problems.push(`${file}: ${sql.slice(0, 80)} (add it NOT VALID, then VALIDATE CONSTRAINT)`);
          if (/ unique \(/.test(sql))
            problems.push(`${file}: ${sql.slice(0, 80)} (build the unique index concurrently, then USING INDEX)`);
        }
      }
    }
    expect(problems).toEqual([]);
  });

  it('npm run db:migration:create writes an OnlineMigration', () => {
    const generator = Object.create(OnlineMigrationGenerator.prototype) as OnlineMigrationGenerator;
    (generator as unknown as { createStatement: (sql: string, pad: number) => string }).createStatement = (sql, pad) =>
      `${' '.repeat(pad)}this.addSql(\`${sql}\`);\n`;
    const text = generator.generateMigrationFile('Migration29990101000000_x', { up: ['select 1'], down: [] });
    expect(text).toContain("import { OnlineMigration } from '../src/db/online-migration.ts';");
    expect(text).toContain('export class Migration29990101000000_x extends OnlineMigration {');
  });

  it('recognises PostgreSQL giving up on a lock, directly or wrapped by the ORM', () => {
    expect(isLockTimeout({ code: '55P03' })).toBe(true);
    expect(isLockTimeout(new Error('x', { cause: { code: '55P03' } }))).toBe(true);
    expect(isLockTimeout(new Error('canceling statement due to lock timeout'))).toBe(true);
    expect(isLockTimeout(new Error('relation "x" does not exist'))).toBe(false);
  });
});
