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
/** The accounts module's own writer of members, named anywhere (imported, called, or reached through a namespace). */
const memberWriter = /\bcreateUser\b/g;
/** Test helpers (tests/support) may make rows for the factories' callers; test files may not. */
const SUPPORT = 'tests/support/';

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return filesUnder(path);
    return /\.(ts|tsx)$/.test(entry.name) ? [relative(root, path)] : [];
  });
}

/** file:line of every match (the whole file is searched: a statement may break between the words). */
function offending(pattern: RegExp, allowed: (file: string) => boolean): string[] {
  return filesUnder(join(root, 'tests'))
    .filter((file) => !allowed(file))
    .flatMap((file) => {
      const text = readFileSync(join(root, file), 'utf8');
      return [...text.matchAll(pattern)].map((m) => `${file}:${text.slice(0, m.index).split('\n').length}`);
    });
}

const matches = (pattern: RegExp, text: string) => [...text.matchAll(pattern)].length > 0;

describe('test data', () => {
  it('is written as SQL text nowhere in tests/ but the factories', () => {
    const allowed = (file: string) => file === FACTORIES || PLANTED.includes(file);
    expect(offending(insertText, allowed), `use the factories in ${FACTORIES} or a typed Kysely insert`).toEqual([]);
  });

  it('makes members, licences and sales only through the factories', () => {
    const allowed = (file: string) => file === FACTORIES || PLANTED.includes(file);
    expect(offending(factoryTable, allowed), `use aLicense/aSale/manySales/manyMembers from ${FACTORIES}`).toEqual([]);
  });

  it('makes members through aMember/aMemberIn, never createUser, in every test file', () => {
    const allowed = (file: string) => file.startsWith(SUPPORT) || PLANTED.includes(file);
    expect(offending(memberWriter, allowed), `use aMember or aMemberIn from ${FACTORIES}`).toEqual([]);
  });

  it('finds the phrase in any case and across spaces and lines, and only that', () => {
    for (const text of ['INSERT  INTO sales', "em.execute('insert\tinto users')", '`insert\n  into x`']) {
      expect(matches(insertText, text), text).toBe(true);
    }
    for (const text of ['insertInto(', 'reinsert intolerance', 'insert-into'])
      expect(matches(insertText, text), text).toBe(false);
    expect(matches(factoryTable, "db.insertInto('sales')")).toBe(true);
    expect(matches(factoryTable, "db.insertInto('audit_logs')")).toBe(false);
    for (const text of ['createUser(tx, {', 'import { createUser } from', 'accounts.createUser(tx'])
      expect(matches(memberWriter, text), text).toBe(true);
    for (const text of ['createUsers(', 'recreateUser', 'aMember(orm']) expect(matches(memberWriter, text), text).toBe(false);
  });
});
