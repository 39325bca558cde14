import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Options } from '@mikro-orm/core';
import { Client } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadEnv } from '../../src/config/env.ts';
import { MIGRATION_LOCK_TIMEOUT_MS, OnlineMigration } from '../../src/db/online-migration.ts';
import { initOrm, ormConfig } from '../../src/db/orm.ts';
import { entities, migrateShop, openDatabase } from '../../src/host/modules.ts';
import { cycle, dbAt, manyLicenses, manyMembers, manySales, numbered } from '../support/factories.ts';
import { type PrivatePostgres, startPrivatePostgres } from './support/postgres.ts';

/**
 * Online migrations on a shop of a real size: 1,000,000 sales and 100,000 members, while readers and
 * writers keep going and a long report holds its lock on `sales`. Reads must never wait more than
 * about a second (docs/decisions/0025-online-migrations.md).
 */
const SALES = 1_000_000;
const MEMBERS = 100_000;

let pg: PrivatePostgres;
let url: string;

beforeAll(async () => {
  pg = await startPrivatePostgres();
  await pg.query('create database shop_online');
  url = pg.urlOf('shop_online');
  const env = loadEnv({ DATABASE_URL: url });
  const orm = await openDatabase(env);
  try {
    await migrateShop(env, orm);
  } finally {
    await orm.close(true);
  }
  const t0 = performance.now();
  const seed = dbAt(url);
  try {
    await manyMembers(seed, {
      to: MEMBERS,
      id: 'u{n}',
      email: 'member{n}@example.jp',
      lastName: '佐藤',
      firstName: '太郎{n}',
      affiliation: cycle([1, 2, 3, 4, 5, 6]),
      affiliationName: '〇〇署',
    });
    const licenses = await manyLicenses(seed, { to: 100, name: 'ライセンス {n}', price: 1000 });
    // Sale n is member 1 + n mod MEMBERS's, of licence n mod 100, in each state in turn.
    await manySales(seed, {
      to: SALES,
      userId: numbered('u{n}', MEMBERS, 1),
      lastName: '佐藤',
      firstName: '太郎',
      email: numbered('member{n}@example.jp', MEMBERS, 1),
      affiliationName: '〇〇署',
      licenseId: cycle(licenses),
      licenseName: 'ライセンス',
      stripeSessionId: 'cs_online_{n}',
      paidAt: { stepSeconds: -1 },
      status: cycle([0, 1, 2]),
    });
  } finally {
    await seed.destroy();
  }
  await pg.query('vacuum analyze', [], 'shop_online');
  console.info(
    `online migrations: seeded ${SALES} sales and ${MEMBERS} members in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
  );
}, 600_000);
afterAll(async () => {
  await pg?.destroy();
});

/** A client of its own on the shop's database. */
async function connect(): Promise<Client> {
  const client = new Client({ connectionString: url });
  await client.connect();
  return client;
}

/**
 * Reads a member's sales and a member, and writes one sale, in a loop on connections of their own until
 * stopped; answers the slowest read and write (ms) and how many ran.
 */
async function traffic() {
  const [reader, writer] = [await connect(), await connect()];
  let running = true;
  const slowest = { read: 0, write: 0, reads: 0, writes: 0 };
  const loop = async (client: Client, kind: 'read' | 'write') => {
    while (running) {
      const id = 1 + Math.floor(Math.random() * SALES);
      const t0 = performance.now();
      if (kind === 'read') {
        await client.query('select id, amount, status from sales where user_id = $1 order by id desc limit 20', [
          `u${1 + (id % MEMBERS)}`,
        ]);
        await client.query('select id, email from users where id = $1', [`u${1 + (id % MEMBERS)}`]);
        slowest.reads++;
      } else {
        await client.query('update sales set updated_at = now() where id = $1', [id]);
        slowest.writes++;
      }
      slowest[kind] = Math.max(slowest[kind], performance.now() - t0);
      await sleep(20);
    }
  };
  const loops = Promise.all([loop(reader, 'read'), loop(writer, 'write')]);
  return {
    async stop() {
      running = false;
      await loops;
      await Promise.all([reader.end(), writer.end()]);
      return slowest;
    },
  };
}

/** A report that read `sales` in a transaction left open for `ms`: it holds its ACCESS SHARE lock that long. */
async function longReport(ms: number) {
  const client = await connect();
  await client.query('begin');
  await client.query('select count(*) from sales where id < 1000');
  const done = (async () => {
    await sleep(ms);
    await client.query('commit');
    await client.end();
  })();
  return done;
}

class AddColumnsToSalesAndUsers extends OnlineMigration {
  override up() {
    this.addSql('alter table "sales" add column "probe_note" varchar(40) null');
    this.addSql('alter table "users" add column "probe_kana" varchar(40) null');
  }
}

class IndexSalesConcurrently extends OnlineMigration {
  override isTransactional() {
    return false;
  }
  override async up() {
    await this.addIndexConcurrently('sales_probe_license_paid_index', 'on "sales" ("license_id", "paid_at", "amount")');
  }
}

const PROBES = [
  { name: 'Migration29990101000000_probe_columns', class: AddColumnsToSalesAndUsers },
  { name: 'Migration29990101000001_probe_index', class: IndexSalesConcurrently },
];

/** The shop's migrator on the test database with `migrations` standing for the files in migrations/. */
async function ormWith(migrations: { name: string; class: unknown }[]) {
  const env = loadEnv({ DATABASE_URL: url });
  const base = ormConfig(env, entities);
  const overrides = { migrations: { ...base.migrations, migrationsList: migrations } } as Partial<Options>;
  return { env, orm: await initOrm(env, entities, overrides) };
}

describe('migrations on 1,000,000 sales', () => {
  it('a blocked ALTER without lock_timeout stops every read of sales behind it (the measurement can see it)', async () => {
    const load = await traffic();
    await sleep(300);
    const report = longReport(3_000);
    await sleep(200);
    const ddl = await connect();
    await ddl.query('alter table "sales" add column "control_note" varchar(40) null');
    await ddl.query('alter table "sales" drop column "control_note"');
    await ddl.end();
    await report;
    const slowest = await load.stop();
    expect(slowest.read).toBeGreaterThan(2_000);
  }, 120_000);

  it('adds columns and builds an index while reads and writes go on, waiting out a long report by retrying', async () => {
    const warnings: string[] = [];
    const { env, orm } = await ormWith(PROBES);
    try {
      const load = await traffic();
      await sleep(300);
      const report = longReport(3_000);
      await sleep(200);
      const t0 = performance.now();
      const applied = await migrateShop(env, orm, {
        log: { warn: (message: string) => warnings.push(message) },
        pauseMs: 300,
      });
      const seconds = (performance.now() - t0) / 1000;
      await report;
      const slowest = await load.stop();
      console.info(
        `online migrations: applied in ${seconds.toFixed(1)} s; slowest read ${slowest.read.toFixed(0)} ms of ${slowest.reads}, slowest write ${slowest.write.toFixed(0)} ms of ${slowest.writes}; ${warnings.length} lock retries`,
      );
      expect(applied).toEqual(['Migration29990101000000_probe_columns', 'Migration29990101000001_probe_index']);
      // The report held its lock for 3 s: the ALTER gave up (lock_timeout) and was tried again.
      expect(warnings.length).toBeGreaterThan(0);
      expect(slowest.read).toBeLessThan(MIGRATION_LOCK_TIMEOUT_MS + 700);
      expect(slowest.write).toBeLessThan(MIGRATION_LOCK_TIMEOUT_MS + 700);
      expect(slowest.reads).toBeGreaterThan(20);
      const [index] = await pg.query<{ valid: boolean }>(
        "select indisvalid as valid from pg_index where indexrelid = 'sales_probe_license_paid_index'::regclass",
        [],
        'shop_online',
      );
      expect(index?.valid).toBe(true);
      const columns = await pg.query<{ column_name: string }>(
        "select column_name from information_schema.columns where column_name in ('probe_note', 'probe_kana') order by 1",
        [],
        'shop_online',
      );
      expect(columns.map((c) => c.column_name)).toEqual(['probe_kana', 'probe_note']);
    } finally {
      await orm.close(true);
    }
  }, 300_000);

  it('an index build interrupted half-way (left invalid) is dropped and built again', async () => {
    const client = await connect();
    // Cancelling CREATE INDEX CONCURRENTLY leaves an invalid index behind, as a killed migration does.
    const build = client
      .query('create index concurrently "sales_probe_retry_index" on "sales" ("buyer_email", "paid_at")')
      .catch((error: Error) => error);
    await sleep(300);
    await pg.query(
      'select pg_cancel_backend(pid) from pg_stat_activity where query like \'create index concurrently "sales_probe_retry_index"%\'',
      [],
      'shop_online',
    );
    expect(await build).toBeInstanceOf(Error);
    await client.end();
    const validity = () =>
      pg.query<{ valid: boolean }>(
        "select indisvalid as valid from pg_index where indexrelid = to_regclass('sales_probe_retry_index')",
        [],
        'shop_online',
      );
    expect((await validity())[0]?.valid).toBe(false);

    class RetryIndex extends OnlineMigration {
      override isTransactional() {
        return false;
      }
      override async up() {
        await this.addIndexConcurrently('sales_probe_retry_index', 'on "sales" ("buyer_email", "paid_at")');
      }
    }
    const { env, orm } = await ormWith([...PROBES, { name: 'Migration29990101000002_probe_retry_index', class: RetryIndex }]);
    try {
      expect(await migrateShop(env, orm)).toEqual(['Migration29990101000002_probe_retry_index']);
    } finally {
      await orm.close(true);
    }
    expect((await validity())[0]?.valid).toBe(true);
  }, 300_000);
});
