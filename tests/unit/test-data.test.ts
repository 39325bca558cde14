import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

// Tests make their rows through tests/support/factories.ts (Kysely typed by src/db/schema.ts), so a
// column renamed by a migration breaks the type check in one place rather than SQL text in many files.

const root = resolve(import.meta.dirname, '../..');
const FACTORIES = 'tests/support/factories.ts';
/** Hold the phrase as data, not as writes: a planted SQL string for the architecture check's table finder, and this check's own cases. */
const PLANTED = ['tests/unit/architecture.test.ts', 'tests/unit/test-data.test.ts'];

/** The statement as text, in any case and spacing. */
const insertText = /\binsert\s+into\b/gi;
/** A typed insert into the tables only the factories write. */
const factoryTable = /\.insertInto\(\s*['"`](users|licenses|sales)['"`]\s*\)/g;

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return filesUnder(path);
    return /\.(ts|tsx)$/.test(entry.name) ? [relative(root, path)] : [];
  });
}

/** file:line of every match (the whole file is searched: a statement may break between the words). */
function offending(pattern: RegExp, allowed: string[]): string[] {
  return filesUnder(join(root, 'tests'))
    .filter((file) => !allowed.includes(file))
    .flatMap((file) => {
      const text = readFileSync(join(root, file), 'utf8');
      return [...text.matchAll(pattern)].map((m) => `${file}:${text.slice(0, m.index).split('\n').length}`);
    });
}

const matches = (pattern: RegExp, text: string) => [...text.matchAll(pattern)].length > 0;

describe('test data', () => {
  it('is written as SQL text nowhere in tests/ but the factories', () => {
    expect(offending(insertText, [FACTORIES, ...PLANTED]), `use the factories in ${FACTORIES} or a typed Kysely insert`).toEqual(
      [],
    );
  });

  it('makes members, licences and sales only through the factories', () => {
    expect(
      offending(factoryTable, [FACTORIES, ...PLANTED]),
      `use aLicense/aSale/manySales/manyMembers from ${FACTORIES}`,
    ).toEqual([]);
  });

  it('finds the phrase in any case and across spaces and lines, and only that', () => {
    for (const text of ['INSERT  INTO sales', "em.execute('insert\tinto users')", '`insert\n  into x`']) {
      expect(matches(insertText, text), text).toBe(true);
    }
    for (const text of ['insertInto(', 'reinsert intolerance', 'insert-into'])
      expect(matches(insertText, text), text).toBe(false);
    expect(matches(factoryTable, "db.insertInto('sales')")).toBe(true);
    expect(matches(factoryTable, "db.insertInto('audit_logs')")).toBe(false);
  });
});
