import { readFileSync } from 'node:fs';
import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateSchema, SCHEMA_FILE } from '../../scripts/db-types.ts';
import { loadEnv } from '../../src/config/env.ts';
import { db } from '../../src/db/kysely.ts';
import type { Em, Orm } from '../../src/db/orm.ts';
import { recordEvent, transact } from '../../src/events/outbox.ts';
import { openDatabase } from '../../src/host/modules.ts';
import { aLicense } from '../support/factories.ts';
import { createDatabase } from '../support/runtime.ts';

// Typed queries (docs/decisions/0035-typed-queries.md).
let database: Awaited<ReturnType<typeof createDatabase>>;
let orm: Orm;

beforeAll(async () => {
  database = await createDatabase();
  orm = await openDatabase(loadEnv({ DATABASE_URL: database.url }));
});

afterAll(async () => {
  await orm?.close(true);
  await database?.drop();
});

const licenseNamed = (em: Em, name: string) =>
  db(em).selectFrom('licenses').select(['id', 'name', 'price']).where('name', '=', name).executeTakeFirst();

describe('the database interface (src/db/schema.ts)', () => {
  it('is what kysely-codegen generates from the migrated schema (run `npm run db:types` after a migration)', async () => {
    // The clone holds exactly the migrations of this tree (the template is migrated at the start of the run).
    const generated = await generateSchema(orm.em.fork().getKysely() as Kysely<unknown>);
    expect(generated).toBe(readFileSync(SCHEMA_FILE, 'utf8'));
  });
});

describe('db(em): Kysely on the EntityManager’s transaction', () => {
  it('sees the rows its transaction wrote but has not committed, and the outbox event of the same transaction', async () => {
    const seen = await transact(orm.em as Em, async (tx) => {
      const inserted = await aLicense(db(tx), { name: '未コミットの講座', price: 1200 });
      const event = recordEvent(tx, 'LicenseHidden', { licenseId: inserted });
      await tx.flush();
      // Another connection does not see either yet.
      const outside = await licenseNamed(orm.em.fork() as Em, '未コミットの講座');
      const outboxOutside = await db(orm.em.fork() as Em)
        .selectFrom('outbox_events')
        .select('id')
        .where('id', '=', event.id)
        .executeTakeFirst();
      const inside = await licenseNamed(tx, '未コミットの講座');
      const outboxInside = await db(tx).selectFrom('outbox_events').select('name').where('id', '=', event.id).executeTakeFirst();
      return { outside, outboxOutside, inside, outboxInside, eventName: event.name };
    }).catch((error: unknown) => ({ error }));
    expect(seen).not.toHaveProperty('error');
    const { outside, outboxOutside, inside, outboxInside, eventName } = seen as Exclude<typeof seen, { error: unknown }>;
    expect(outside).toBeUndefined();
    expect(outboxOutside).toBeUndefined();
    expect(inside).toMatchObject({ name: '未コミットの講座', price: 1200 });
    expect(outboxInside).toEqual({ name: eventName });
    expect(await licenseNamed(orm.em.fork() as Em, '未コミットの講座')).toMatchObject({ price: 1200 });
  });

  it('rolls back with the transaction', async () => {
    const failure = new Error('取り消し');
    await expect(
      transact(orm.em as Em, async (tx) => {
        await aLicense(db(tx), { name: '取り消される講座', price: 900 });
        expect(await licenseNamed(tx, '取り消される講座')).toMatchObject({ price: 900 });
        throw failure;
      }),
    ).rejects.toBe(failure);
    expect(await licenseNamed(orm.em.fork() as Em, '取り消される講座')).toBeUndefined();
  });

  it('reads timestamps as the text the interface declares', async () => {
    const row = await db(orm.em.fork() as Em)
      .selectFrom('licenses')
      .select('created_at')
      .where('name', '=', '未コミットの講座')
      .executeTakeFirstOrThrow();
    expect(typeof row.created_at).toBe('string');
    expect(Number.isNaN(new Date(row.created_at).getTime())).toBe(false);
  });
});
