import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sqlText, sqlTextLines, sqlTextOf, textExecutions } from '../../scripts/sql-text.ts';

// Lines of SQL written as text in src/ (docs/decisions/0035-typed-queries.md). Queries are written
// with Kysely (db(em)); text remains only where no builder can say it, marked `SQL as text: <why>`.

/**
 * The only SQL written as text, each marked with why: advisory locks, pg_notify and LISTEN, and reads
 * of the server's catalogue on a raw connection. Every other statement is a Kysely query.
 */
const MARKED: Record<string, number> = {
  'src/db/changes.ts': 3,
  'src/db/online-migration.ts': 1,
  'src/db/orm.ts': 5,
  'src/events/sweeper.ts': 1,
  'src/modules/checkout/reconciliation-runs.ts': 1,
  'src/modules/checkout/one-session.ts': 1,
};

describe('SQL written as text in src/', () => {
  const lines = sqlTextLines();

  it('appears nowhere unmarked', () => {
    const over = Object.entries(lines)
      .filter(([, count]) => count.unmarked > 0)
      .map(([file, count]) => ({ file, lines: count.unmarked, allowed: 0 }));
    const where = sqlText()
      .filter((l) => !l.marked && over.some((o) => o.file === l.file))
      .map((l) => `${l.file}:${l.line} ${l.text.slice(0, 80)}`);
    expect(
      over,
      `write these with Kysely (db(em)), or mark one no builder can say with "SQL as text: why":\n${where.join('\n')}`,
    ).toEqual([]);
  });

  it('is marked, saying why, only where no builder can say it — and those exceptions do not grow', () => {
    const over = Object.entries(lines)
      .filter(([file, count]) => count.marked > (MARKED[file] ?? 0))
      .map(([file, count]) => ({ file, lines: count.marked, allowed: MARKED[file] ?? 0 }));
    expect(over).toEqual([]);
  });

  it('counts a statement, a clause and a tagged template, and sees the mark above one', () => {
    const code = [
      "await em.execute('select id from sales where id = ?', [1]);",
      'const where = `s.license_id = ?`;',
      "const ok = 'ご注文ありがとうございます。';",
      '// SQL as text: an advisory lock, which no builder says.',
      `await sql\`select pg_advisory_xact_lock(\${key})\`.execute(db);`,
      'const query = `update sales',
      '  set status = ? where id = ?`;',
    ].join('\n');
    const found = sqlTextOf('planted.ts', code);
    expect(found.map(({ line, lines, marked }) => ({ line, lines, marked }))).toEqual([
      { line: 1, lines: 1, marked: false },
      { line: 2, lines: 1, marked: false },
      { line: 5, lines: 1, marked: true },
      { line: 6, lines: 2, marked: false },
    ]);
  });
});

describe('statements sent as text (decision 0040)', () => {
  it('appear only in the allowed files', () => {
    expect(textExecutions()).toEqual([]);
  });

  it('are found wherever they are written', () => {
    const root = mkdtempSync(join(tmpdir(), 'text-execution-'));
    try {
      mkdirSync(join(root, 'src/modules/a'), { recursive: true });
      mkdirSync(join(root, 'workers'));
      writeFileSync(
        join(root, 'src/modules/a/service.ts'),
        "await em.execute('select 1');\nawait db(em).selectFrom('a').execute();\n",
      );
      writeFileSync(
        join(root, 'workers/x.ts'),
        'await sql.raw(text).execute(k);\nawait tx.execute<{ n: number }[]>(`select 2`);\n',
      );
      expect(textExecutions(root).map((t) => `${t.file}:${t.line}`)).toEqual([
        'src/modules/a/service.ts:1',
        'workers/x.ts:1',
        'workers/x.ts:2',
      ]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
