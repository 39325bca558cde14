import { Client } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadEnv } from '../../src/config/env.ts';
import type { Db } from '../../src/db/kysely.ts';
import type { Orm } from '../../src/db/orm.ts';
import { openDatabase } from '../../src/host/modules.ts';
import { newOrderNumber, ORDER_NUMBER_PATTERN } from '../../src/modules/sales/index.ts';
import { databaseUrl, TEMPLATE_DB, TEST_PG_URL } from '../support/env.ts';
import {
  aCheckoutBeforeOrderNumbers,
  aLicense,
  aSaleBeforeOrderNumbers,
  dbAt,
  manyCheckoutsBeforeOrderNumbers,
} from '../support/factories.ts';

// Issue 34 review item 4: the backfill that gives order numbers to checkouts made before they had one
// (migrations/20261128100200_checkout-order-numbers-backfill.ts), run on a database populated as the
// schema held it before 20261128100000: every checkout numbered, a paid one sharing its sale's number,
// others numbered for the Japan month they were ordered in, all unique, in more than one batch.

const BEFORE = '20261128091116_export-worker-instance';
const BACKFILL = '20261128100200_checkout-order-numbers-backfill';
/** More than the backfill's batch of 5,000, so it has to come back for the rest. */
const MANY = 5_200;
const name = `${TEMPLATE_DB}_backfill_${process.pid}`;
let orm: Orm;
let db: Db;

async function admin(statement: string) {
  const client = new Client({ connectionString: TEST_PG_URL });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

beforeAll(async () => {
  await admin(`drop database if exists ${name} with (force)`);
  await admin(`create database ${name}`);
  orm = await openDatabase(loadEnv({ DATABASE_URL: databaseUrl(name) }));
  await orm.migrator.up({ to: BEFORE });
  db = dbAt(databaseUrl(name));
}, 120_000);
afterAll(async () => {
  await db?.destroy();
  await orm?.close(true);
  await admin(`drop database if exists ${name} with (force)`);
});

interface Row {
  id: string;
  state: string;
  created_at: Date;
  order_number: string | null;
}
const checkouts = async () =>
  (await db.selectFrom('checkout_sessions').select(['id', 'state', 'created_at', 'order_number']).execute()) as unknown as Row[];

describe('the checkout order-number backfill on data of the old shape', () => {
  it('numbers every checkout: a paid one with its sale’s number, others for their Japan month, all unique', async () => {
    const licenseId = await aLicense(db, { name: '救急隊員 指導者ライセンス' });
    // 00:30 on 1 November in Japan is still 31 October in UTC: the number must say 2611.
    const japanNovember = new Date('2026-10-31T15:30:00Z');
    const october = new Date('2026-10-20T03:00:00Z');
    const paid: { checkoutId: string; orderNumber: string }[] = [];
    for (const [state, konbiniDays] of [
      ['complete', undefined],
      ['complete', 3],
    ] as const) {
      const stripeSessionId = `cs_test_backfill_${state}_${konbiniDays ?? 'card'}`;
      const checkoutId = await aCheckoutBeforeOrderNumbers(db, licenseId, {
        state,
        createdAt: october,
        stripeSessionId,
        ...(konbiniDays ? { konbiniDays } : {}),
      });
      // Sales were numbered by their payment month then (decision 0030).
      const orderNumber = newOrderNumber(new Date('2026-11-02T00:00:00Z'));
      await aSaleBeforeOrderNumbers(db, licenseId, { checkoutId, stripeSessionId, paidAt: october, orderNumber });
      paid.push({ checkoutId, orderNumber });
    }
    const pending = await aCheckoutBeforeOrderNumbers(db, licenseId, {
      state: 'awaiting_payment',
      createdAt: japanNovember,
      konbiniDays: 3,
    });
    const lapsed = await aCheckoutBeforeOrderNumbers(db, licenseId, {
      state: 'payment_failed',
      createdAt: october,
      konbiniDays: 3,
    });
    const open = await aCheckoutBeforeOrderNumbers(db, licenseId, { state: 'open', createdAt: japanNovember });
    await manyCheckoutsBeforeOrderNumbers(db, licenseId, MANY, october);
    const before = await db.selectFrom('checkout_sessions').select('id').execute();
    expect(before).toHaveLength(MANY + 5);

    const ran = await orm.migrator.up({ to: BACKFILL });
    expect(ran.map((m) => m.name)).toEqual([
      '20261128100000_checkout-order-numbers-and-bank-transfer',
      '20261128100100_checkout-order-numbers-index',
      BACKFILL,
    ]);

    const rows = await checkouts();
    expect(rows).toHaveLength(MANY + 5);
    expect(rows.filter((row) => row.order_number === null)).toEqual([]);
    const numbers = rows.map((row) => row.order_number as string);
    expect(new Set(numbers).size).toBe(rows.length);
    for (const number of numbers) expect(number).toMatch(ORDER_NUMBER_PATTERN);
    const byId = new Map(rows.map((row) => [row.id, row.order_number]));
    for (const sale of paid) expect(byId.get(sale.checkoutId)).toBe(sale.orderNumber);
    expect(byId.get(pending)).toMatch(/^LS-2611-/);
    expect(byId.get(open)).toMatch(/^LS-2611-/);
    expect(byId.get(lapsed)).toMatch(/^LS-2610-/);
    const unpaid = rows.filter((row) => !paid.some((sale) => sale.checkoutId === row.id));
    expect(
      unpaid.filter((row) => row.id !== pending && row.id !== open).every((row) => row.order_number?.startsWith('LS-2610-')),
    ).toBe(true);
    // No unpaid checkout took a number a sale already has.
    const saleNumbers = new Set(paid.map((sale) => sale.orderNumber));
    expect(unpaid.filter((row) => saleNumbers.has(row.order_number as string))).toEqual([]);

    // Run again (an interrupted deploy starting over): nothing left to number, nothing renumbered.
    await orm.migrator.down({ to: '20261128100100_checkout-order-numbers-index' });
    await orm.migrator.up({ to: BACKFILL });
    expect(new Map((await checkouts()).map((row) => [row.id, row.order_number]))).toEqual(byId);

    // The later migrations apply over the numbered data, and the sales keep their numbers.
    await orm.migrator.up();
    const sales = await db.selectFrom('sales').select(['checkout_session_id', 'order_number']).execute();
    expect(new Map(sales.map((s) => [s.checkout_session_id, s.order_number]))).toEqual(
      new Map(paid.map((sale) => [sale.checkoutId, sale.orderNumber])),
    );
  }, 120_000);
});
