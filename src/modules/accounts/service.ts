import { randomUUID } from 'node:crypto';
import { LockMode, UniqueConstraintViolationException } from '@mikro-orm/core';
import { type Expression, expressionBuilder, type SqlBool, sql } from 'kysely';
import { type ChangeFeed, cached, tableCache } from '../../db/changes.ts';
import { countAll, type Db, now as dbNow, db as kysely } from '../../db/kysely.ts';
import { COUNT_CAP, containsPattern, memberNameSearch, SEARCH_COUNT_CAP } from '../../db/like.ts';
import type { Em, Orm } from '../../db/orm.ts';
import { recordEvent, transact } from '../../events/outbox.ts';
import { AppError, validationError } from '../../http/errors.ts';
import { type Actor, recordAudit } from '../audit/index.ts';
import { listMails } from '../mail/index.ts';
import { Account, User } from './entities/user.entity.ts';
import type { UsersAsU } from './member-match.ts';
import { hashPassword, verifyPassword } from './password.ts';
import { assertPasswordFitsOwner } from './password-policy.ts';
import type { ProfileData, RegistrationData } from './schemas.ts';
import { consumeToken, retireTokens, tokenState } from './tokens.ts';
import { passkeyNames, removePasskeys } from './two-factor.ts';
import { clearTwoFactorLock } from './two-factor-lock.ts';

export interface NewUser {
  email: string;
  password: string;
  lastName: string;
  firstName: string;
  /** 全角カタカナ (already normalised: schemas.ts), or none. */
  lastNameKana?: string | null;
  firstNameKana?: string | null;
  role?: 'admin' | 'user';
  emailVerified?: boolean;
  affiliation?: number | null;
  affiliationName?: string;
  affiliationOther?: string | null;
  distribution?: boolean;
}

/** A user entity, or a row of the list (whose timestamps come as the database's text). */
type DtoSource = Pick<User, 'id' | 'email' | 'lastName' | 'firstName' | 'role' | 'emailVerified'> &
  Partial<
    Pick<
      User,
      | 'affiliation'
      | 'affiliationName'
      | 'affiliationOther'
      | 'distribution'
      | 'pendingEmail'
      | 'twoFactorEnabled'
      | 'lastNameKana'
      | 'firstNameKana'
    >
  > & {
    createdAt?: Date | string;
    updatedAt?: Date | string;
    lastSignInAt?: Date | string | null;
  };

/** The user as the API shows it (the seed's snake_case fields). */
export function userDto(user: DtoSource, extra: { pendingEmail?: string | null } = {}) {
  return {
    id: user.id,
    email: user.email,
    last_name: user.lastName,
    first_name: user.firstName,
    last_name_kana: user.lastNameKana ?? null,
    first_name_kana: user.firstNameKana ?? null,
    affiliations: user.affiliation ?? null,
    affiliation_name: user.affiliationName ?? '',
    affiliation_other: user.affiliationOther ?? null,
    distribution: user.distribution ?? true,
    role: user.role,
    email_verified: user.emailVerified,
    two_factor_enabled: Boolean(user.twoFactorEnabled),
    last_sign_in_at: user.lastSignInAt ? new Date(user.lastSignInAt).toISOString() : null,
    ...(extra.pendingEmail !== undefined ? { pending_email: extra.pendingEmail } : {}),
    ...(user.createdAt ? { created_at: new Date(user.createdAt).toISOString() } : {}),
    // The version an edit carries back (a newer one answers 409).
    ...(user.updatedAt ? { updated_at: new Date(user.updatedAt).toISOString() } : {}),
  };
}

/** The registration/edit input as the confirm screen shows it (never the passwords). */
export function profileDto(input: ProfileData) {
  return {
    email: input.email,
    email_confirmation: input.email_confirmation,
    last_name: input.last_name,
    first_name: input.first_name,
    last_name_kana: input.last_name_kana ?? null,
    first_name_kana: input.first_name_kana ?? null,
    affiliations: input.affiliations,
    affiliation_name: input.affiliation_name,
    affiliation_other: input.affiliation_other,
    distribution: input.distribution,
  };
}

export function findUserByEmail(em: Em, email: string): Promise<User | null> {
  return em.findOne(User, { email: email.trim().toLowerCase() });
}

/**
 * Creates a user with a credential account inside the caller's transaction; an unverified user
 * also records UserRegistered, so the verification e-mail goes out exactly when the row commits.
 */
export async function createUser(tx: Em, input: NewUser): Promise<User> {
  const now = new Date();
  const user = tx.create(User, {
    id: randomUUID(),
    email: input.email.trim().toLowerCase(),
    emailVerified: input.emailVerified ?? false,
    name: `${input.lastName} ${input.firstName}`.trim(),
    lastName: input.lastName,
    firstName: input.firstName,
    lastNameKana: input.lastNameKana ?? null,
    firstNameKana: input.firstNameKana ?? null,
    role: input.role ?? 'user',
    affiliation: input.affiliation ?? null,
    affiliationName: input.affiliationName ?? '',
    affiliationOther: input.affiliationOther ?? null,
    distribution: input.distribution ?? true,
    banned: false,
    createdAt: now,
    updatedAt: now,
  });
  tx.create(Account, {
    id: randomUUID(),
    accountId: user.id,
    providerId: 'credential',
    user,
    password: await hashPassword(input.password),
    createdAt: now,
    updatedAt: now,
  });
  if (!user.emailVerified) recordEvent(tx, 'UserRegistered', { userId: user.id });
  return user;
}

/**
 * A unique index refused the write: MikroORM's exception for what it flushes, node-postgres's error
 * (SQLSTATE 23505) for a Kysely statement (decision 0035).
 */
const isUniqueViolation = (error: unknown) =>
  error instanceof UniqueConstraintViolationException || (error as { code?: unknown } | null)?.code === '23505';

/** Creates an administrator, or promotes an existing user; running it twice changes nothing more. */
export async function createOrPromoteAdmin(
  orm: Orm,
  input: { email: string; password: string; lastName?: string; firstName?: string },
): Promise<{ user: User; created: boolean }> {
  return transact(orm.em as Em, async (tx) => {
    const existing = await findUserByEmail(tx, input.email);
    if (existing) {
      existing.role = 'admin';
      existing.emailVerified = true;
      return { user: existing, created: false };
    }
    const user = await createUser(tx, {
      email: input.email,
      password: input.password,
      lastName: input.lastName ?? '管理者',
      firstName: input.firstName ?? '',
      role: 'admin',
      emailVerified: true,
    });
    return { user, created: true };
  });
}

/**
 * Registration without account enumeration: a new address gets an account and a verification
 * e-mail; an address that already has one gets the same answer, and its owner an e-mail saying so.
 */
export async function register(orm: Orm, input: RegistrationData): Promise<void> {
  const attempt = () =>
    transact(orm.em as Em, async (tx) => {
      const existing = await findUserByEmail(tx, input.email);
      if (existing) {
        await hashPassword(input.password); // the same work as a new account, so timing tells nothing
        recordEvent(tx, 'RegistrationAttempted', { userId: existing.id });
        return;
      }
      await createUser(tx, {
        email: input.email,
        password: input.password,
        lastName: input.last_name,
        firstName: input.first_name,
        lastNameKana: input.last_name_kana ?? null,
        firstNameKana: input.first_name_kana ?? null,
        affiliation: input.affiliations,
        affiliationName: input.affiliation_name,
        affiliationOther: input.affiliation_other,
        distribution: input.distribution,
      });
    });
  try {
    await attempt();
  } catch (error) {
    // Two registrations of one address at once: the loser is told like any existing address.
    if (isUniqueViolation(error)) return attempt();
    throw error;
  }
}

/** A verification link: marks the address verified. A used link whose address is verified still succeeds. */
export async function verifyEmail(orm: Orm, token: string): Promise<'verified' | 'used' | 'expired' | 'invalid'> {
  return transact(orm.em as Em, async (tx) => {
    const result = await consumeToken(tx, token, 'verify-email');
    if (result.ok) {
      await kysely(tx)
        .updateTable('users')
        .set({ email_verified: true, updated_at: dbNow() })
        .where('id', '=', result.userId)
        .execute();
      return 'verified';
    }
    if (result.reason === 'used' && result.userId) {
      const user = await tx.findOne(User, { id: result.userId });
      if (user?.emailVerified) return 'verified';
    }
    return result.reason;
  });
}

/** A new verification e-mail for an unverified address; nothing (and the same answer) otherwise. */
export async function requestVerificationEmail(orm: Orm, email: string): Promise<void> {
  await transact(orm.em as Em, async (tx) => {
    const user = await findUserByEmail(tx, email);
    if (user && !user.emailVerified) recordEvent(tx, 'VerificationEmailRequested', { userId: user.id });
  });
}

/** Forgot password: the same answer for any address; an existing account gets the reset e-mail. */
/**
 * Forgot-password takes one path for every address — an event, whatever the address — and the mail
 * worker decides whether an account exists: the answer's timing says nothing.
 */
export async function requestPasswordReset(orm: Orm, email: string): Promise<void> {
  await transact(orm.em as Em, async (tx) => {
    recordEvent(tx, 'PasswordResetRequested', { email: email.trim().toLowerCase() });
  });
}

async function setPassword(tx: Em, userId: string, password: string) {
  const hash = await hashPassword(password);
  const updated = await kysely(tx)
    .updateTable('accounts')
    .set({ password: hash, updated_at: dbNow() })
    .where('user_id', '=', userId)
    .where('provider_id', '=', 'credential')
    .returning('id')
    .execute();
  if (updated.length === 0) {
    const now = new Date();
    tx.create(Account, {
      id: randomUUID(),
      accountId: userId,
      providerId: 'credential',
      user: tx.getReference(User, userId),
      password: hash,
      createdAt: now,
      updatedAt: now,
    });
  }
}

/** The member's password hash (their credential account), if they have one. */
async function credentialPassword(db: Db, userId: string): Promise<string | null | undefined> {
  const row = await db
    .selectFrom('accounts')
    .select('password')
    .where('user_id', '=', userId)
    .where('provider_id', '=', 'credential')
    .executeTakeFirst();
  return row?.password;
}

/** Every session of `userId` ends (in the caller's transaction). */
async function endSessions(tx: Em, userId: string): Promise<void> {
  await kysely(tx).deleteFrom('sessions').where('user_id', '=', userId).execute();
}

/** Why a reset link does not work, as the API's `code` and the message the reset page shows. */
export const RESET_LINK_PROBLEMS = {
  used: {
    code: 'reset_link_used',
    message: 'このリンクは使用済みです。パスワードを再設定するには、もう一度お手続きください。',
  },
  expired: {
    code: 'reset_link_expired',
    message: 'このリンクの有効期限が切れています。パスワードを再設定するには、もう一度お手続きください。',
  },
  invalid: {
    code: 'reset_link_invalid',
    message: 'このリンクは無効です。メールに記載のリンクをそのまま開くか、もう一度お手続きください。',
  },
} as const;

/** The 422 of a reset link that does not work: the spec's shape, plus a `code` saying used, expired or unknown. */
const resetLinkError = (reason: keyof typeof RESET_LINK_PROBLEMS) => {
  const { code, message } = RESET_LINK_PROBLEMS[reason];
  return new AppError('validation', message, { errors: { token: [message] }, details: { code } });
};

/** A reset link's state before it is used: `{ valid: true }`, or why not. */
export async function checkResetLink(orm: Orm, token: string) {
  const state = await tokenState(orm.em.fork() as Em, token, 'reset-password');
  return state === 'valid' ? { valid: true as const } : { valid: false as const, ...RESET_LINK_PROBLEMS[state] };
}
const RESET_EMAIL_MISMATCH =
  'メールアドレスが、再設定のご案内をお送りしたメールアドレスと一致しません。ご案内メールの宛先のメールアドレスを入力してください。';

/** Resets the password with an e-mailed token (1 hour, once) and ends every session of the account. */
export async function resetPassword(orm: Orm, input: { email: string; password: string; token: string }): Promise<void> {
  await transact(orm.em as Em, async (tx) => {
    const result = await consumeToken(tx, input.token, 'reset-password');
    if (!result.ok) throw resetLinkError(result.reason);
    const user = await tx.findOne(User, { id: result.userId });
    if (!user) throw resetLinkError('invalid');
    // A typo is not an expired link: say which field is wrong (the rollback keeps the token usable).
    if (user.email !== input.email) throw validationError({ email: [RESET_EMAIL_MISMATCH] }, RESET_EMAIL_MISMATCH);
    await assertPasswordFitsOwner('password', input.password, user);
    await setPassword(tx, user.id, input.password);
    await retireTokens(tx, user.id, 'reset-password');
    await clearTwoFactorLock(tx, user.id);
    // Following the link proved the mailbox is theirs.
    user.emailVerified = true;
    await endSessions(tx, user.id);
    // The "I lost control" path: a passkey the intruder added would sign in past the new password.
    const passkeys = await removePasskeys(tx, user.id);
    recordEvent(tx, 'PasswordChanged', { userId: user.id, by: 'reset', passkeys });
  });
}

/** Changes the password after checking the current one; the member's other sessions end. */
export async function changePassword(
  orm: Orm,
  userId: string,
  currentSessionToken: string | undefined,
  input: { old_password: string; new_password: string },
): Promise<void> {
  await transact(orm.em as Em, async (tx) => {
    const current = await credentialPassword(kysely(tx), userId);
    if (!current || !(await verifyPassword(current, input.old_password))) {
      throw validationError({ old_password: ['現在のパスワードが正しくありません。'] });
    }
    const user = await tx.findOne(User, { id: userId });
    if (user) await assertPasswordFitsOwner('new_password', input.new_password, user);
    await setPassword(tx, userId, input.new_password);
    await kysely(tx)
      .deleteFrom('sessions')
      .where('user_id', '=', userId)
      .where('token', '<>', currentSessionToken ?? '')
      .execute();
    // Passkeys stay (the member chose a new password, not a new device): the notice lists them.
    recordEvent(tx, 'PasswordChanged', { userId, by: 'member', passkeys: await passkeyNames(tx, userId) });
  });
}

/** Whether `password` is the member's current one (re-authentication before a sensitive change). */
export async function isCurrentPassword(orm: Orm, userId: string, password: string): Promise<boolean> {
  const current = await credentialPassword(kysely(orm.em.fork() as Em), userId);
  return Boolean(current && (await verifyPassword(current, password)));
}

export const USER_NOT_FOUND = 'ユーザーが見つかりませんでした。';

const auditView = (user: User) => ({
  email: user.email,
  last_name: user.lastName,
  first_name: user.firstName,
  last_name_kana: user.lastNameKana ?? null,
  first_name_kana: user.firstNameKana ?? null,
  affiliations: user.affiliation,
  affiliation_name: user.affiliationName,
  affiliation_other: user.affiliationOther,
  distribution: user.distribution,
});

export async function getUser(orm: Orm, id: string) {
  const user = await orm.em.fork().findOne(User, { id });
  if (!user) throw new AppError('not_found', USER_NOT_FOUND);
  return userDto(user, { pendingEmail: user.pendingEmail ?? null });
}

const STALE_USER_EDIT =
  'この会員情報は、別の画面または管理者によって先に更新されています。最新の内容を読み込んでから、もう一度変更してください。';

/** 409 unless `user` is still the version `updatedAt` (an ISO time) an edit was loaded from. */
function assertVersion(user: User, updatedAt: string | undefined): void {
  if (updatedAt !== undefined && user.updatedAt.getTime() !== new Date(updatedAt).getTime()) {
    throw new AppError('conflict', STALE_USER_EDIT);
  }
}

/** The validate call of an edit: 404 for nobody, 409 when the form was loaded from an older version. */
export async function checkEditable(orm: Orm, id: string, updatedAt: string | undefined): Promise<void> {
  const user = await orm.em.fork().findOne(User, { id });
  if (!user) throw new AppError('not_found', USER_NOT_FOUND);
  assertVersion(user, updatedAt);
}

/** The フリガナ an edit sets: a field left out of the call (a seed client) keeps what is stored. */
const kanaOf = (input: Pick<ProfileData, 'last_name_kana' | 'first_name_kana'>) => ({
  ...(input.last_name_kana !== undefined ? { lastNameKana: input.last_name_kana } : {}),
  ...(input.first_name_kana !== undefined ? { firstNameKana: input.first_name_kana } : {}),
});

/**
 * Saves a profile edit over the version it was loaded from (`updatedAt`), else 409: the row is locked
 * for the check, so of two edits of one version only the first saves. Names, affiliation and
 * distribution change at once; a new e-mail address only after it is verified (EmailChangeRequested
 * mails it a link, and tells the old address) unless an administrator changes it.
 */
export async function updateProfile(
  orm: Orm,
  id: string,
  input: ProfileData & { updated_at?: string },
  byAdmin: Actor | null = null,
): Promise<{ emailChangePending: boolean; emailChanged?: boolean }> {
  return transact(orm.em as Em, async (tx) => {
    const user = await tx.findOne(User, { id }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    if (!user) throw new AppError('not_found', USER_NOT_FOUND);
    assertVersion(user, input.updated_at);
    const before = auditView(user);
    if (byAdmin) {
      const oldEmail = user.email;
      // An administrator's edit applies at once (the address is theirs to vouch for) and is audited.
      if (input.email !== user.email && (await findUserByEmail(tx, input.email))) {
        throw validationError({ email: ['このメールアドレスは既に使用されています。'] });
      }
      Object.assign(user, {
        email: input.email,
        pendingEmail: null,
        lastName: input.last_name,
        firstName: input.first_name,
        name: `${input.last_name} ${input.first_name}`,
        ...kanaOf(input),
        affiliation: input.affiliations,
        affiliationName: input.affiliation_name,
        affiliationOther: input.affiliation_other,
        distribution: input.distribution,
        updatedAt: new Date(),
      });
      recordAudit(tx, byAdmin, { action: 'user.update', targetType: 'user', targetId: user.id, before, after: auditView(user) });
      // The member must learn the address they now sign in with, and the old one that it changed.
      if (oldEmail !== user.email) recordEvent(tx, 'EmailChangedByAdmin', { userId: user.id, oldEmail });
      return { emailChangePending: false, emailChanged: oldEmail !== user.email };
    }
    user.lastName = input.last_name;
    user.firstName = input.first_name;
    user.name = `${input.last_name} ${input.first_name}`;
    Object.assign(user, kanaOf(input));
    user.affiliation = input.affiliations;
    user.affiliationName = input.affiliation_name;
    user.affiliationOther = input.affiliation_other;
    user.distribution = input.distribution;
    user.updatedAt = new Date();
    if (input.email === user.email) {
      user.pendingEmail = null;
      return { emailChangePending: false };
    }
    // A taken address answers exactly like a free one (no account enumeration): its owner is told
    // instead, and no confirmation link is sent anywhere.
    user.pendingEmail = input.email;
    const taken = await findUserByEmail(tx, input.email);
    if (taken && taken.id !== user.id) recordEvent(tx, 'EmailChangeAttempted', { userId: taken.id });
    else recordEvent(tx, 'EmailChangeRequested', { userId: user.id, newEmail: input.email });
    return { emailChangePending: true };
  });
}

/** A confirmation link sent to a new address: the address becomes the account's e-mail. */
export async function confirmEmailChange(orm: Orm, token: string): Promise<'changed' | 'used' | 'expired' | 'invalid' | 'taken'> {
  try {
    return await transact(orm.em as Em, async (tx) => {
      const result = await consumeToken(tx, token, 'change-email');
      if (!result.ok) return result.reason;
      if (!result.newEmail) return 'invalid';
      const taken = await findUserByEmail(tx, result.newEmail);
      if (taken && taken.id !== result.userId) return 'taken';
      await kysely(tx)
        .updateTable('users')
        .set({ email: result.newEmail, email_verified: true, pending_email: null, updated_at: dbNow() })
        .where('id', '=', result.userId)
        .execute();
      return 'changed';
    });
  } catch (error) {
    if (isUniqueViolation(error)) return 'taken';
    throw error;
  }
}

export interface UserSearch {
  name?: string;
  email?: string;
  affiliations?: number;
  page: number;
  per_page: number;
  sort: string;
}

/**
 * The list's orders: a column and its type, each with the id after it. `kana` is 五十音 (the trigger's
 * kana_sort: members without フリガナ after the others), ascending only.
 */
export const USER_ORDERS: Record<
  string,
  { column: 'u.created_at' | 'u.email' | 'u.name_key' | 'u.kana_sort'; type: 'timestamptz' | 'text' }
> = {
  created_at: { column: 'u.created_at', type: 'timestamptz' },
  email: { column: 'u.email', type: 'text' },
  name: { column: 'u.name_key', type: 'text' },
  kana: { column: 'u.kana_sort', type: 'text' },
};

export const orderOf = (sort: string) => ({
  ...(USER_ORDERS[sort.replace(/^-/, '')] ?? (USER_ORDERS.created_at as (typeof USER_ORDERS)[string])),
  desc: sort.startsWith('-'),
});

/**
 * The condition of the administrators' user search (the list and its CSV) on `users as u`: name —
 * 姓, 名, 「姓 名」, 「姓名」 or フリガナ, any width, hiragana or katakana, 異体字 folded (db/like.ts) —,
 * e-mail (partial), affiliation. Null when nothing is asked (no `where` at all).
 */
export function userWhere(query: Pick<UserSearch, 'name' | 'email' | 'affiliations'>): Expression<SqlBool> | null {
  const eb = expressionBuilder<UsersAsU, 'u'>();
  const terms: Expression<SqlBool>[] = [];
  const byName = query.name
    ? memberNameSearch(eb, query.name, { key: eb.ref('u.search_key'), grams: eb.ref('u.search_grams') })
    : null;
  if (byName) terms.push(byName);
  if (query.email) terms.push(eb('u.email', 'ilike', containsPattern(query.email)));
  if (query.affiliations) terms.push(eb('u.affiliation', '=', query.affiliations));
  return terms.length ? eb.and(terms) : null;
}

/**
 * The administrators' user list: searched (userWhere), paged, sorted; read as plain rows (hydrating
 * entities cost more than the query).
 */
const userTotals = (changes: ChangeFeed | undefined) =>
  tableCache<{ n: number }[]>(changes, 'user list totals', ['users'], { max: 1_000, ttlMs: 10 * 60_000 });

export async function searchUsers(orm: Orm, query: UserSearch, changes?: ChangeFeed) {
  const db = kysely(orm.em.fork() as Em);
  const where = userWhere(query);
  const order = orderOf(query.sort);
  const dir = order.desc ? 'desc' : 'asc';
  const cap = query.name || query.email ? SEARCH_COUNT_CAP : COUNT_CAP;
  const users = () => db.selectFrom('users as u').$call((qb) => (where ? qb.where(where) : qb));
  const countQuery = db
    .selectFrom(
      users()
        .select(sql.lit(1).as('one'))
        .limit(cap + 1)
        .as('capped'),
    )
    .select((eb) => countAll(eb).as('n'));
  const compiled = countQuery.compile();
  // A total is kept until the users change (change notices): counting is most of the list's cost.
  const [count] = await cached(userTotals(changes), JSON.stringify([compiled.sql, compiled.parameters]), () =>
    countQuery.execute(),
  );
  // The page's ids first — from the order's index alone (created_at, kana_sort), however deep the
  // page — then the rows of those few.
  const rows = await db
    .with('page', () =>
      users()
        .select('u.id')
        .orderBy(order.column, dir)
        .orderBy('u.id', dir)
        .limit(query.per_page)
        .offset((query.page - 1) * query.per_page),
    )
    .selectFrom('page')
    .innerJoin('users as u', 'u.id', 'page.id')
    .select([
      'u.id',
      'u.email',
      'u.last_name as lastName',
      'u.first_name as firstName',
      'u.last_name_kana as lastNameKana',
      'u.first_name_kana as firstNameKana',
      'u.role',
      'u.email_verified as emailVerified',
      'u.affiliation',
      'u.affiliation_name as affiliationName',
      'u.affiliation_other as affiliationOther',
      'u.distribution',
      'u.created_at as createdAt',
      'u.updated_at as updatedAt',
      'u.pending_email as pendingEmail',
      'u.two_factor_enabled as twoFactorEnabled',
      'u.last_sign_in_at as lastSignInAt',
    ])
    .orderBy(order.column, dir)
    .orderBy('u.id', dir)
    .execute();
  const n = count?.n ?? 0;
  return {
    users: rows.map((u) => userDto(u, { pendingEmail: u.pendingEmail ?? null })),
    total: Math.min(n, cap),
    total_capped: n > cap,
    page: query.page,
    per_page: query.per_page,
  };
}

/** An administrator sets a user's password; every session of that user ends. */
export async function forcePassword(orm: Orm, actor: Actor, id: string, password: string): Promise<void> {
  await transact(orm.em as Em, async (tx) => {
    const user = await tx.findOne(User, { id });
    if (!user) throw new AppError('not_found', USER_NOT_FOUND);
    await assertPasswordFitsOwner('new_password', password, user);
    await setPassword(tx, user.id, password);
    await endSessions(tx, user.id);
    recordEvent(tx, 'PasswordChanged', { userId: user.id, by: 'admin' });
    recordAudit(tx, actor, { action: 'user.force_password', targetType: 'user', targetId: user.id });
  });
}

/**
 * An administrator deletes an account: its sessions end, the account goes; its sales stay, with the
 * buyer's details copied at purchase time (UserDeleted: the sales module empties their user link).
 */
export async function forceDelete(orm: Orm, actor: Actor, id: string): Promise<void> {
  if (actor.id === id) throw new AppError('forbidden', '自分自身のアカウントは削除できません。');
  await transact(orm.em as Em, async (tx) => {
    const user = await tx.findOne(User, { id });
    if (!user) throw new AppError('not_found', USER_NOT_FOUND);
    if (user.role === 'admin') await keepAnAdministrator(tx);
    const before = auditView(user);
    await removeAccount(tx, user.id, 'admin');
    recordAudit(tx, actor, { action: 'user.delete', targetType: 'user', targetId: id, before });
  });
}

/**
 * Removes an account and its personal data, in the caller's transaction: sessions end at once; the
 * user row goes, and with it (cascading) the sign-in credentials, e-mail tokens and pending address
 * changes. Sales stay with the buyer's details copied at purchase time, for accounting: UserDeleted
 * tells the modules that keep a reference to the user (sales, checkout) to drop it.
 */
async function removeAccount(tx: Em, userId: string, by: 'member' | 'admin'): Promise<void> {
  await endSessions(tx, userId);
  await kysely(tx).deleteFrom('users').where('id', '=', userId).execute();
  recordEvent(tx, 'UserDeleted', { userId, by });
}

export const ADMIN_CANNOT_WITHDRAW =
  '管理者のアカウントは退会の手続きでは削除できません。別の管理者に権限を外してもらうか、削除を依頼してください。';
const WRONG_PASSWORD = 'パスワードが正しくありません。';

/**
 * 退会: a member deletes their own account after confirming their current password. Their personal
 * data goes exactly as with an administrator's delete (removeAccount); the address and name are
 * captured first (MemberWithdrew) so the goodbye e-mail can still reach them. Administrators cannot
 * (the last-administrator rule stays with the administrators' delete). Audited as the member's own act.
 */
export async function withdraw(orm: Orm, userId: string, password: string): Promise<void> {
  await transact(orm.em as Em, async (tx) => {
    const user = await tx.findOne(User, { id: userId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    if (!user) throw new AppError('not_found', USER_NOT_FOUND);
    if (user.role === 'admin') throw new AppError('forbidden', ADMIN_CANNOT_WITHDRAW);
    const current = await credentialPassword(kysely(tx), user.id);
    if (!current || !(await verifyPassword(current, password))) {
      throw validationError({ password: [WRONG_PASSWORD] }, WRONG_PASSWORD);
    }
    recordEvent(tx, 'MemberWithdrew', {
      userId: user.id,
      email: user.email,
      name: `${user.lastName} ${user.firstName}`.trim(),
    });
    await removeAccount(tx, user.id, 'member');
    // Only who and when: the profile itself is what the member asked us to erase.
    recordAudit(tx, { id: user.id, email: user.email }, { action: 'user.withdraw', targetType: 'user', targetId: user.id });
  });
}

const buyerOf = (
  user: Pick<User, 'id' | 'email' | 'lastName' | 'firstName' | 'affiliation' | 'affiliationName' | 'affiliationOther'>,
) => ({
  id: user.id,
  email: user.email,
  lastName: user.lastName,
  firstName: user.firstName,
  affiliation: user.affiliation ?? null,
  affiliationName: user.affiliationName,
  affiliationOther: user.affiliationOther ?? null,
});

/** The buyer's details as they are now, for the sale a payment creates (null: the account is gone). */
export async function findBuyer(em: Em, userId: string) {
  const user = await em.findOne(User, { id: userId });
  return user ? buyerOf(user) : null;
}

/**
 * The administrators (better-auth role `admin`, not banned) with the address to tell them at, oldest
 * account first: operational notices such as the reconciliation digest go to each of them.
 */
export async function administrators(em: Em): Promise<{ id: string; email: string; lastName: string; firstName: string }[]> {
  const users = await em.find(
    User,
    { role: 'admin', $or: [{ banned: false }, { banned: null }] },
    { orderBy: { createdAt: 'asc', id: 'asc' }, fields: ['id', 'email', 'lastName', 'firstName'] },
  );
  return users.map((user) => ({ id: user.id, email: user.email, lastName: user.lastName, firstName: user.firstName }));
}

/** Several members' current details at once (the training-system CSV, in batches of thousands); deleted ones are absent. */
export async function currentBuyers(em: Em, userIds: readonly string[]): Promise<Map<string, Buyer>> {
  if (userIds.length === 0) return new Map();
  const rows = await kysely(em)
    .selectFrom('users')
    .select([
      'id',
      'email',
      'last_name as lastName',
      'first_name as firstName',
      'affiliation',
      'affiliation_name as affiliationName',
      'affiliation_other as affiliationOther',
    ])
    .where('id', 'in', [...new Set(userIds)])
    .execute();
  return new Map(rows.map((row) => [row.id, row]));
}
export type Buyer = NonNullable<Awaited<ReturnType<typeof findBuyer>>>;

/** The purchase screen's distribution opt-in is the member's current choice: saved in the caller's transaction. */
export async function setDistribution(tx: Em, userId: string, distribution: boolean): Promise<void> {
  await kysely(tx).updateTable('users').set({ distribution, updated_at: dbNow() }).where('id', '=', userId).execute();
}

/** The shop must keep one administrator: refuses (409) when `tx` would remove the last one. Locks the administrators. */
async function keepAnAdministrator(tx: Em): Promise<void> {
  const admins = await kysely(tx).selectFrom('users').select('id').where('role', '=', 'admin').forUpdate().execute();
  if (admins.length <= 1) throw new AppError('conflict', '最後の管理者は外せません。先に別の管理者を追加してください。');
}

/**
 * Grants or revokes administrator rights (audited). An administrator cannot demote themselves, and the
 * last administrator stays one. The user's sessions end, so the new role counts at their next request
 * and the header they see is redrawn on sign-in.
 */
export async function setRole(orm: Orm, actor: Actor, id: string, role: 'admin' | 'user'): Promise<void> {
  if (actor.id === id && role !== 'admin') throw new AppError('forbidden', '自分自身の管理者権限は外せません。');
  await transact(orm.em as Em, async (tx) => {
    const user = await tx.findOne(User, { id });
    if (!user) throw new AppError('not_found', USER_NOT_FOUND);
    if (user.role === role) return;
    if (user.role === 'admin') await keepAnAdministrator(tx);
    const before = { role: user.role };
    user.role = role;
    user.updatedAt = new Date();
    if (role === 'admin') user.emailVerified = true;
    await endSessions(tx, user.id);
    recordAudit(tx, actor, { action: 'user.role', targetType: 'user', targetId: user.id, before, after: { role } });
  });
}

const ALREADY_VERIFIED = 'このユーザーのメールアドレスは確認済みです。確認メールを再送する必要はありません。';

/**
 * An administrator sends a member whose address is not verified yet a new verification link (the
 * earlier ones stop working). `throttle` may refuse it for the recipient; audited.
 */
export async function resendVerificationMail(
  orm: Orm,
  actor: Actor,
  id: string,
  throttle: (email: string) => Promise<void>,
): Promise<{ email: string }> {
  return transact(orm.em as Em, async (tx) => {
    const user = await tx.findOne(User, { id });
    if (!user) throw new AppError('not_found', USER_NOT_FOUND);
    if (user.emailVerified) throw new AppError('conflict', ALREADY_VERIFIED);
    await throttle(user.email);
    recordEvent(tx, 'VerificationEmailRequested', { userId: user.id });
    recordAudit(tx, actor, {
      action: 'user.resend_verification',
      targetType: 'user',
      targetId: user.id,
      after: { email: user.email },
    });
    return { email: user.email };
  });
}

/** A member's mail log (administrators): 404 for nobody. */
export async function userMails(orm: Orm, id: string, paging: { page: number; per_page: number }) {
  const em = orm.em.fork() as Em;
  if (!(await em.findOne(User, { id }))) throw new AppError('not_found', USER_NOT_FOUND);
  return listMails(em, id, paging);
}
