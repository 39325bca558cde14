import { randomUUID } from 'node:crypto';
import { Kysely, PostgresDialect, type RawBuilder, sql } from 'kysely';
import pg from 'pg';
import { type DB, type Db, db as kyselyOf } from '../../src/db/kysely.ts';
import type { Em, Orm } from '../../src/db/orm.ts';
import { transact } from '../../src/events/outbox.ts';
import { createOrPromoteAdmin, createUser } from '../../src/modules/accounts/index.ts';
import { newOrderNumber, SaleStatus } from '../../src/modules/sales/index.ts';

/**
 * Test data as the shop would hold it, with defaults a reader need not care about and overrides for
 * what a test is about. Members and administrators go through the accounts module (a real password
 * hash, a verified address unless told otherwise); licences and sales are written straight to their
 * tables with Kysely typed by the generated schema, as a test that is not about buying needs them (no
 * Stripe, no events). These are the only writers of test rows: tests/unit/test-data.test.ts fails on
 * `insert into` text anywhere else in tests/.
 */
let seq = 0;
const next = () => `${Date.now().toString(36)}${(++seq).toString(36)}`;

/** Where test rows go: the shop's ORM (its pool) or any Kysely over the shop's database. */
export type Target = Orm | Db;
const dbOf = (target: Target): Db => (target instanceof Kysely ? target : kyselyOf(target.em.fork() as Em));

/** A Kysely on a connection pool of its own (writes "from elsewhere", or a database no ORM is open on); destroy it after. */
export function dbAt(connectionString: string): Db {
  return new Kysely<DB>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString, max: 2 }) }) });
}

type NewUser = Parameters<typeof createUser>[1];
export type MemberOverrides = Partial<NewUser>;

/**
 * A member (verified unless `emailVerified: false`, when the shop records UserRegistered and sends the
 * verification e-mail): returns the account with the password used.
 */
export function aMember(orm: Orm, overrides: MemberOverrides = {}) {
  return transact(orm.em as Em, (tx) => aMemberIn(tx, overrides));
}

/** The same, inside a transaction the test holds open (its events commit or roll back with it). */
export async function aMemberIn(tx: Em, overrides: MemberOverrides = {}) {
  const input: NewUser = {
    ...overrides,
    email: overrides.email ?? `member-${next()}@example.jp`,
    password: overrides.password ?? 'member-pass-123',
    lastName: overrides.lastName ?? '山田',
    firstName: overrides.firstName ?? '太郎',
    emailVerified: overrides.emailVerified ?? true,
    affiliation: overrides.affiliation === undefined ? 4 : overrides.affiliation,
    affiliationName: overrides.affiliationName ?? '〇〇消防局',
  };
  const user = await createUser(tx, input);
  return { id: user.id, email: user.email, password: input.password, lastName: input.lastName, firstName: input.firstName };
}

/** An administrator (two-factor is enrolled by TestClient.login on first sign-in). */
export async function anAdmin(orm: Orm, overrides: { email?: string; password?: string } = {}) {
  const email = overrides.email ?? `admin-${next()}@example.jp`;
  const password = overrides.password ?? 'admin-pass-12345';
  await createOrPromoteAdmin(orm, { email, password });
  return { email, password };
}

/** A published licence (¥11,000 税込 unless told). */
export async function aLicense(target: Target, overrides: { name?: string; price?: number; published?: boolean } = {}) {
  const row = await dbOf(target)
    .insertInto('licenses')
    .values({
      name: overrides.name ?? `ライセンス ${next()}`,
      description: '',
      price: overrides.price ?? 11_000,
      published: overrides.published ?? true,
      created_at: sql`now()`,
      updated_at: sql`now()`,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/**
 * A refund of a sale confirmed by Stripe (the whole remaining amount unless told), as the
 * PaymentRefunded handler records it: the refund row, the sale's refunded total, and refunded_at once whole.
 */
export async function aRefund(
  target: Target,
  saleId: number,
  overrides: { amount?: number; refundedAt?: string | Date; reason?: string } = {},
) {
  const db = dbOf(target);
  const at = new Date(overrides.refundedAt ?? new Date()).toISOString();
  const sale = await db
    .selectFrom('sales')
    .select(['amount', 'refunded_amount'])
    .where('id', '=', saleId)
    .executeTakeFirstOrThrow();
  const amount = overrides.amount ?? sale.amount - sale.refunded_amount;
  const total = sale.refunded_amount + amount;
  await db
    .insertInto('sale_refunds')
    .values({ sale_id: saleId, amount, reason: overrides.reason ?? null, refunded_at: at, created_at: at })
    .execute();
  await db
    .updateTable('sales')
    .set({ refunded_amount: total, ...(total >= sale.amount ? { refunded_at: at } : {}) })
    .where('id', '=', saleId)
    .execute();
}

export interface SaleOverrides {
  userId?: string | null;
  lastName?: string;
  firstName?: string;
  email?: string;
  affiliation?: number | null;
  affiliationName?: string;
  affiliationOther?: string | null;
  /** The licence's name as the buyer saw it (its current name unless told). */
  licenseName?: string;
  amount?: number;
  paidAt?: string | Date;
  status?: SaleStatus;
  refunded?: boolean;
  stripeSessionId?: string;
  /** A new 注文番号 for `paidAt` unless told (null: a sale from before order numbers). */
  orderNumber?: string | null;
  paymentMethod?: 'card' | 'konbini' | 'bank_transfer';
  orderedAt?: string | Date;
  stripePaymentIntentId?: string;
}

/**
 * A paid sale of `licenseId` (出力待ち unless told), with its order number, as the CheckoutPaid handler
 * would have recorded it.
 */
export async function aSale(target: Target, licenseId: number, overrides: SaleOverrides = {}) {
  const paidAt = overrides.paidAt ? new Date(overrides.paidAt) : new Date();
  const db = dbOf(target);
  const row = await db
    .insertInto('sales')
    .values({
      user_id: overrides.userId ?? null,
      buyer_last_name: overrides.lastName ?? '山田',
      buyer_first_name: overrides.firstName ?? '太郎',
      buyer_email: overrides.email ?? `buyer-${next()}@example.jp`,
      buyer_affiliation: overrides.affiliation === undefined ? 4 : overrides.affiliation,
      buyer_affiliation_name: overrides.affiliationName ?? '〇〇消防局',
      buyer_affiliation_other: overrides.affiliationOther ?? null,
      license_id: licenseId,
      license_name: overrides.licenseName ?? db.selectFrom('licenses').select('name').where('id', '=', licenseId),
      amount: overrides.amount ?? 11_000,
      currency: 'jpy',
      checkout_session_id: randomUUID(),
      stripe_session_id: overrides.stripeSessionId ?? `cs_test_${next()}`,
      paid_at: paidAt.toISOString(),
      ordered_at: overrides.orderedAt ? new Date(overrides.orderedAt).toISOString() : paidAt.toISOString(),
      payment_method: overrides.paymentMethod ?? 'card',
      stripe_payment_intent_id: overrides.stripePaymentIntentId ?? null,
      refunded_at: overrides.refunded ? paidAt.toISOString() : null,
      status: overrides.status ?? SaleStatus.AwaitingExport,
      order_number: overrides.orderNumber === undefined ? newOrderNumber(paidAt) : overrides.orderNumber,
      created_at: sql`now()`,
      updated_at: sql`now()`,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  if (overrides.refunded) await aRefund(target, row.id, { refundedAt: paidAt });
  return row.id;
}

/*
 * Bulk seeding: one `insert … select … from generate_series(from, to) as g`, row n taking its values
 * from the options. A string may hold `{n}` (the row's number), a `cycle([...])` takes its
 * (n mod length)-th value, a `Timeline` starts at a time (the transaction's `now()` unless told) and
 * steps by seconds per row. Every value is a bound parameter.
 */

/** Values taken in turn: row n gets `values[n % values.length]` (keep text cycles short: PostgreSQL walks a text array to index it). */
export interface Cycle<T> {
  readonly cycle: readonly T[];
}
export const cycle = <T>(values: readonly T[]): Cycle<T> => ({ cycle: values });

/** A `{n}` template whose number runs round: `offset + n % period` (member n of many, without a long cycle). */
export interface Numbered {
  readonly numbered: string;
  readonly period: number;
  readonly offset: number;
}
export const numbered = (template: string, period: number, offset = 0): Numbered => ({ numbered: template, period, offset });

/** Row n's time: `start + n × stepSeconds` (n mod `period` when given). */
export interface Timeline {
  start?: Date | string;
  stepSeconds?: number;
  period?: number;
}

type Each<T> = T | Cycle<T>;
type EachText<T extends string | null> = Each<T> | Numbered;
const g = sql.ref('g');
const rowNumber = (period?: number) => (period ? sql`(g % ${period}::int)` : g);

/** A text column's value: constant, a `{n}` template, a numbered template or a cycle. */
function text(value: EachText<string | null>): RawBuilder<string> {
  if (value === null) return sql`null::text`;
  if (typeof value === 'string') return template(value, g);
  if ('numbered' in value) return template(value.numbered, sql`(${value.offset}::int + g % ${value.period}::int)`);
  return sql`(${value.cycle}::text[])[1 + g % ${value.cycle.length}::int]`;
}

function template(value: string, n: RawBuilder<unknown>): RawBuilder<string> {
  const pieces = value.split('{n}').map((piece) => sql`${piece}::text`);
  return sql.join(pieces, sql` || ${n}::text || `) as RawBuilder<string>;
}

function integer(value: Each<number | null>): RawBuilder<number> {
  if (value !== null && typeof value === 'object') return sql`(${value.cycle}::int[])[1 + g % ${value.cycle.length}::int]`;
  return sql`${value}::int`;
}

function time(timeline: Timeline = {}): RawBuilder<string> {
  const start = timeline.start ? sql`${new Date(timeline.start).toISOString()}::timestamptz` : sql`now()`;
  return sql`${start} + ${rowNumber(timeline.period)} * (${timeline.stepSeconds ?? 0}::int * interval '1 second')`;
}

const series = (db: Db, from: number, to: number) =>
  db.selectFrom(sql<{ g: number }>`generate_series(${from}::int, ${to}::int)`.as('g')).orderBy(g);

export interface ManySales {
  from?: number;
  /** The last row's number (rows from..to). */
  to: number;
  licenseId: Each<number>;
  licenseName?: EachText<string>;
  userId?: EachText<string | null>;
  lastName?: EachText<string>;
  firstName?: EachText<string>;
  email?: EachText<string>;
  affiliation?: Each<number | null>;
  affiliationName?: EachText<string>;
  amount?: number;
  status?: Each<number>;
  stripeSessionId?: EachText<string>;
  paidAt?: Timeline;
}

/** Sales numbered from..to in one statement (paid at the transaction's time, 出力待ち, no 注文番号 unless told). */
export async function manySales(target: Target, o: ManySales): Promise<void> {
  const db = dbOf(target);
  const tag = next();
  const licenseName =
    o.licenseName === undefined
      ? sql<string>`(select name from licenses where id = ${integer(o.licenseId)})`
      : text(o.licenseName);
  await db
    .insertInto('sales')
    .columns([
      'user_id',
      'buyer_last_name',
      'buyer_first_name',
      'buyer_email',
      'buyer_affiliation',
      'buyer_affiliation_name',
      'license_id',
      'license_name',
      'amount',
      'currency',
      'checkout_session_id',
      'stripe_session_id',
      'paid_at',
      'status',
      'created_at',
      'updated_at',
    ])
    .expression(
      series(db, o.from ?? 1, o.to).select([
        text(o.userId ?? null).as('user_id'),
        text(o.lastName ?? '山田').as('buyer_last_name'),
        text(o.firstName ?? '{n}').as('buyer_first_name'),
        text(o.email ?? `buyer-${tag}-{n}@example.jp`).as('buyer_email'),
        integer(o.affiliation === undefined ? 4 : o.affiliation).as('buyer_affiliation'),
        text(o.affiliationName ?? '〇〇消防局').as('buyer_affiliation_name'),
        integer(o.licenseId).as('license_id'),
        licenseName.as('license_name'),
        integer(o.amount ?? 11_000).as('amount'),
        sql`'jpy'`.as('currency'),
        sql`gen_random_uuid()`.as('checkout_session_id'),
        text(o.stripeSessionId ?? `cs_test_${tag}_{n}`).as('stripe_session_id'),
        time(o.paidAt).as('paid_at'),
        integer(o.status ?? SaleStatus.AwaitingExport).as('status'),
        sql`now()`.as('created_at'),
        sql`now()`.as('updated_at'),
      ]),
    )
    .execute();
}

/** Licences numbered from..to in one statement (published unless told); their ids in order. */
export async function manyLicenses(
  target: Target,
  o: { from?: number; to: number; name?: string; price?: number; published?: boolean },
): Promise<number[]> {
  const db = dbOf(target);
  const rows = await db
    .insertInto('licenses')
    .columns(['name', 'description', 'price', 'published', 'created_at', 'updated_at'])
    .expression(
      series(db, o.from ?? 1, o.to).select([
        text(o.name ?? `ライセンス ${next()}-{n}`).as('name'),
        sql`''`.as('description'),
        integer(o.price ?? 11_000).as('price'),
        sql`${o.published ?? true}::boolean`.as('published'),
        sql`now()`.as('created_at'),
        sql`now()`.as('updated_at'),
      ]),
    )
    .returning('id')
    .execute();
  return rows.map((r) => r.id).sort((a, b) => a - b);
}

export interface ManyMembers {
  from?: number;
  to: number;
  id?: EachText<string>;
  email?: EachText<string>;
  name?: EachText<string>;
  lastName?: EachText<string>;
  firstName?: EachText<string>;
  lastNameKana?: EachText<string | null>;
  firstNameKana?: EachText<string | null>;
  affiliation?: Each<number | null>;
  affiliationName?: EachText<string>;
  distribution?: boolean;
  emailVerified?: boolean;
  createdAt?: Timeline;
}

/**
 * Member rows numbered from..to in one statement, for tests about lists and exports of many members:
 * verified, with no password (they never sign in), keyed by the same trigger as any writer's rows.
 */
export async function manyMembers(target: Target, o: ManyMembers): Promise<void> {
  const db = dbOf(target);
  const tag = next();
  await db
    .insertInto('users')
    .columns([
      'id',
      'email',
      'email_verified',
      'name',
      'last_name',
      'first_name',
      'last_name_kana',
      'first_name_kana',
      'affiliation',
      'affiliation_name',
      'distribution',
      'role',
      'banned',
      'two_factor_enabled',
      'created_at',
      'updated_at',
    ])
    .expression(
      series(db, o.from ?? 1, o.to).select([
        (o.id === undefined ? sql`gen_random_uuid()::text` : text(o.id)).as('id'),
        text(o.email ?? `member-${tag}-{n}@example.jp`).as('email'),
        sql`${o.emailVerified ?? true}::boolean`.as('email_verified'),
        text(o.name ?? '').as('name'),
        text(o.lastName ?? '山田').as('last_name'),
        text(o.firstName ?? '{n}').as('first_name'),
        text(o.lastNameKana ?? null).as('last_name_kana'),
        text(o.firstNameKana ?? null).as('first_name_kana'),
        integer(o.affiliation === undefined ? 4 : o.affiliation).as('affiliation'),
        text(o.affiliationName ?? '〇〇消防局').as('affiliation_name'),
        sql`${o.distribution ?? true}::boolean`.as('distribution'),
        sql`'user'`.as('role'),
        sql`false`.as('banned'),
        sql`false`.as('two_factor_enabled'),
        time(o.createdAt).as('created_at'),
        sql`now()`.as('updated_at'),
      ]),
    )
    .execute();
}

/*
 * Rows as the schema held them before checkouts had order numbers (migrations up to
 * 20261128091116_export-worker-instance), for the backfill's test: only the columns that existed then.
 */

/** A checkout of that time: no order number, hold or bank transfer columns; a konbini deadline if told. */
export async function aCheckoutBeforeOrderNumbers(
  db: Db,
  licenseId: number,
  o: { state: string; createdAt: Date; konbiniDays?: number; stripeSessionId?: string },
) {
  const id = randomUUID();
  const at = o.createdAt.toISOString();
  await db
    .insertInto('checkout_sessions')
    .values({
      id,
      user_id: null,
      license_id: licenseId,
      amount: 11_000,
      currency: 'jpy',
      stripe_session_id: o.stripeSessionId ?? `cs_test_${next()}`,
      state: o.state,
      konbini_expires_at:
        o.konbiniDays === undefined ? null : new Date(o.createdAt.getTime() + o.konbiniDays * 86_400_000).toISOString(),
      created_at: at,
      updated_at: at,
    })
    .execute();
  return id;
}

/** A sale of that time made from `checkoutId`: its own order number (decision 0030), no payment method or ordered_at yet. */
export async function aSaleBeforeOrderNumbers(
  db: Db,
  licenseId: number,
  o: { checkoutId: string; stripeSessionId: string; paidAt: Date; orderNumber: string },
) {
  await db
    .insertInto('sales')
    .values({
      user_id: null,
      buyer_last_name: '山田',
      buyer_first_name: '太郎',
      buyer_email: `buyer-${next()}@example.jp`,
      buyer_affiliation: 4,
      buyer_affiliation_name: '〇〇消防局',
      license_id: licenseId,
      license_name: db.selectFrom('licenses').select('name').where('id', '=', licenseId),
      amount: 11_000,
      currency: 'jpy',
      checkout_session_id: o.checkoutId,
      stripe_session_id: o.stripeSessionId,
      paid_at: o.paidAt.toISOString(),
      status: SaleStatus.AwaitingExport,
      order_number: o.orderNumber,
      created_at: sql`now()`,
      updated_at: sql`now()`,
    })
    .execute();
}

/** `count` expired card checkouts of that time in one statement, created a second apart from `createdAt`. */
export async function manyCheckoutsBeforeOrderNumbers(db: Db, licenseId: number, count: number, createdAt: Date) {
  await db
    .insertInto('checkout_sessions')
    .columns(['id', 'license_id', 'amount', 'currency', 'state', 'created_at', 'updated_at'])
    .expression(
      series(db, 1, count).select([
        sql`gen_random_uuid()`.as('id'),
        integer(licenseId).as('license_id'),
        sql`11000`.as('amount'),
        sql`'jpy'`.as('currency'),
        sql`'expired'`.as('state'),
        time({ start: createdAt, stepSeconds: 1 }).as('created_at'),
        sql`now()`.as('updated_at'),
      ]),
    )
    .execute();
}
