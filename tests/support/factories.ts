import { randomUUID } from 'node:crypto';
import type { Em, Orm } from '../../src/db/orm.ts';
import { transact } from '../../src/events/outbox.ts';
import { createOrPromoteAdmin, createUser } from '../../src/modules/accounts/index.ts';
import { newOrderNumber, SaleStatus } from '../../src/modules/sales/index.ts';

/**
 * Test data as the shop would hold it, with defaults a reader need not care about and overrides for
 * what a test is about. Members and administrators go through the accounts module (a real password
 * hash, a verified address unless told otherwise); licences and sales are written straight to their
 * tables, as a test that is not about buying needs them (no Stripe, no events).
 */
let seq = 0;
const next = () => `${Date.now().toString(36)}${(++seq).toString(36)}`;

export interface MemberOverrides {
  email?: string;
  password?: string;
  lastName?: string;
  firstName?: string;
  emailVerified?: boolean;
  affiliation?: number;
  affiliationName?: string;
  affiliationOther?: string | null;
}

/** A member (verified unless `emailVerified: false`): returns the account with the password used. */
export async function aMember(orm: Orm, overrides: MemberOverrides = {}) {
  const input = {
    email: overrides.email ?? `member-${next()}@example.jp`,
    password: overrides.password ?? 'member-pass-123',
    lastName: overrides.lastName ?? '山田',
    firstName: overrides.firstName ?? '太郎',
    emailVerified: overrides.emailVerified ?? true,
    affiliation: overrides.affiliation ?? 4,
    affiliationName: overrides.affiliationName ?? '〇〇消防局',
    affiliationOther: overrides.affiliationOther ?? null,
  };
  const user = await transact(orm.em as Em, (tx) => createUser(tx, input));
  return { id: user.id, email: input.email, password: input.password, lastName: input.lastName, firstName: input.firstName };
}

/** An administrator (two-factor is enrolled by TestClient.login on first sign-in). */
export async function anAdmin(orm: Orm, overrides: { email?: string; password?: string } = {}) {
  const email = overrides.email ?? `admin-${next()}@example.jp`;
  const password = overrides.password ?? 'admin-pass-12345';
  await createOrPromoteAdmin(orm, { email, password });
  return { email, password };
}

/** A published licence (¥11,000 税込 unless told). */
export async function aLicense(orm: Orm, overrides: { name?: string; price?: number; published?: boolean } = {}) {
  const [row] = await orm.em
    .fork()
    .execute<{ id: number }[]>(
      `insert into licenses (name, description, price, published, created_at, updated_at) values (?, '', ?, ?, now(), now()) returning id`,
      [overrides.name ?? `ライセンス ${next()}`, overrides.price ?? 11_000, overrides.published ?? true],
    );
  return row?.id as number;
}

export interface SaleOverrides {
  userId?: string | null;
  lastName?: string;
  firstName?: string;
  email?: string;
  affiliation?: number;
  affiliationName?: string;
  affiliationOther?: string | null;
  amount?: number;
  paidAt?: string | Date;
  status?: SaleStatus;
  refunded?: boolean;
}

/**
 * A paid sale of `licenseId` (出力待ち unless told), with its order number, as the CheckoutPaid handler
 * would have recorded it.
 */
export async function aSale(orm: Orm, licenseId: number, overrides: SaleOverrides = {}) {
  const paidAt = overrides.paidAt ? new Date(overrides.paidAt) : new Date();
  const [row] = await orm.em.fork().execute<{ id: number }[]>(
    `insert into sales (user_id, buyer_last_name, buyer_first_name, buyer_email, buyer_affiliation, buyer_affiliation_name,
       buyer_affiliation_other, license_id, license_name, amount, currency, checkout_session_id, stripe_session_id, paid_at,
       refunded_at, status, order_number, created_at, updated_at)
     values (?, ?, ?, ?, ?, ?, ?, ?, (select name from licenses where id = ?), ?, 'jpy', ?, ?, ?, ?, ?, ?, now(), now())
     returning id`,
    [
      overrides.userId ?? null,
      overrides.lastName ?? '山田',
      overrides.firstName ?? '太郎',
      overrides.email ?? `buyer-${next()}@example.jp`,
      overrides.affiliation ?? 4,
      overrides.affiliationName ?? '〇〇消防局',
      overrides.affiliationOther ?? null,
      licenseId,
      licenseId,
      overrides.amount ?? 11_000,
      randomUUID(),
      `cs_test_${next()}`,
      paidAt,
      overrides.refunded ? paidAt : null,
      overrides.status ?? SaleStatus.AwaitingExport,
      newOrderNumber(paidAt),
    ],
  );
  return row?.id as number;
}
