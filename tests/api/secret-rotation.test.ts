import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { db as kysely } from '../../src/db/kysely.ts';
import type { Em } from '../../src/db/orm.ts';
import { secretVersion } from '../../src/lib/secrets.ts';
import { aMember } from '../support/factories.ts';

import { TestClient } from '../support/http-client.ts';
import { startTestRuntime, type TestRuntime } from '../support/runtime.ts';
import { startSmtp, type TestSmtp } from '../support/smtp.ts';
import { enrolTwoFactor, freshCode } from '../support/two-factor.ts';

const OLD = randomBytes(32).toString('hex');
const NEW = randomBytes(32).toString('hex');
const PASSWORD = 'rotate-pass-12345';
let smtp: TestSmtp;
let before: TestRuntime;
let after: TestRuntime | undefined;

beforeAll(async () => {
  smtp = await startSmtp();
  before = await startTestRuntime({ mode: 'web', smtpUrl: smtp.url, env: { AUTH_SECRET: OLD } });
});
afterAll(async () => {
  await after?.runtime.stop();
  await before?.stop();
  await smtp?.close();
});

/** The same browser (its cookies) talking to another process. */
const sameBrowser = (from: TestClient, app: unknown) => {
  const moved = new TestClient(app, from.ip);
  for (const [name, value] of from.cookies) moved.cookies.set(name, value);
  return moved;
};
const storedSecret = async (t: TestRuntime, email: string) => {
  const row = await kysely(t.runtime.deps.orm.em.fork() as Em)
    .selectFrom('two_factors')
    .innerJoin('users', 'users.id', 'two_factors.user_id')
    .select(['two_factors.secret', 'two_factors.backup_codes'])
    .where('users.email', '=', email)
    .executeTakeFirstOrThrow();
  return row;
};

it('after a restart with a new AUTH_SECRET and the old one in AUTH_PREVIOUS_SECRETS, what the old one made still works', async () => {
  const email = 'rotate-member@example.jp';
  const other = 'rotate-other@example.jp';
  for (const address of [email, other]) {
    await aMember(before.runtime.deps.orm, {
      email: address,
      password: PASSWORD,
      lastName: '鍵',
      firstName: '替',
      emailVerified: true,
    });
  }
  const browser = new TestClient(before.app, '10.77.0.1');
  expect((await browser.login(email, PASSWORD)).status).toBe(200);
  const { secret } = await enrolTwoFactor(browser, email, PASSWORD);
  const otherBrowser = new TestClient(before.app, '10.77.0.2');
  expect((await otherBrowser.login(other, PASSWORD)).status).toBe(200);
  const { secret: otherSecret } = await enrolTwoFactor(otherBrowser, other, PASSWORD);
  // A member's browser trusted for two-factor sign-in (better-auth signs that cookie itself).
  const trusted = new TestClient(before.app, '10.77.0.6');
  await trusted.post('/api/login', { email, password: PASSWORD });
  const trust = await trusted.post('/api/login/two-factor', { code: await freshCode(secret), trust_device: true });
  expect(trust.status).toBe(200);
  await trusted.post('/api/logout');
  await browser.get('/api/csrf-token');
  const oldCsrf = browser.cookies.get('XSRF-TOKEN');
  expect(oldCsrf).toBeDefined();

  await before.runtime.stop();
  after = await startTestRuntime({
    mode: 'web',
    smtpUrl: smtp.url,
    shareWith: { db: before.db, env: { dataDir: before.env.dataDir }, prefix: before.prefix },
    env: { AUTH_SECRET: NEW, AUTH_PREVIOUS_SECRETS: `${OLD}` },
  });
  const restarted = after;

  // The old session cookie still signs the member in, and the old CSRF token passes an unsafe request.
  const resumed = sameBrowser(browser, restarted.app);
  const me = await resumed.get('/api/login');
  expect((await me.json()).users[0]?.email).toBe(email);
  expect(resumed.cookies.get('XSRF-TOKEN')).toBe(oldCsrf);
  // An unsafe request (sign-out) with the token the old secret signed: not refused as forged (419).
  const stolenCopy = sameBrowser(resumed, restarted.app);
  const logout = await resumed.post('/api/logout');
  expect(logout.status).toBeLessThan(300);
  // better-auth's sign-out found the session the old secret signed, and ended it.
  expect((await (await stolenCopy.get('/api/login')).json()).users).toEqual([]);

  // The trusted browser is still trusted: password alone signs in.
  const stillTrusted = sameBrowser(trusted, restarted.app);
  const quick = await stillTrusted.post('/api/login', { email, password: PASSWORD });
  expect(quick.status).toBe(200);
  expect(await quick.json()).not.toMatchObject({ two_factor_required: true });

  // A two-factor sign-in with the enrolment made under the old secret.
  const fresh = new TestClient(restarted.app, '10.77.0.3');
  expect(await (await fresh.post('/api/login', { email, password: PASSWORD })).json()).toMatchObject({
    two_factor_required: true,
  });
  const signedIn = await fresh.post('/api/login/two-factor', { code: await freshCode(secret) });
  expect(signedIn.status).toBe(200);
  // …which re-encrypted it under the new secret (better-auth's envelope names the key version).
  const underNew = `$ba$${secretVersion(NEW)}$`;
  expect((await storedSecret(restarted, email)).secret.startsWith(underNew)).toBe(true);

  // Not yet the other member's: `npm run secrets:rotate` does the rest at once.
  const untouched = await storedSecret(restarted, other);
  expect(untouched.secret.startsWith(`$ba$${secretVersion(OLD)}$`)).toBe(true);
  const root = resolve(import.meta.dirname, '../..');
  const { stdout } = await promisify(execFile)(process.execPath, ['src/cli/secrets-rotate.ts'], {
    cwd: root,
    env: {
      PATH: process.env.PATH,
      DATABASE_URL: restarted.db.url,
      DATA_DIR: restarted.env.dataDir,
      AUTH_SECRET: NEW,
      AUTH_PREVIOUS_SECRETS: OLD,
    },
  });
  expect(stdout).toContain('re-encrypted under AUTH_SECRET): 1');
  const rotated = await storedSecret(restarted, other);
  expect(rotated.secret.startsWith(underNew)).toBe(true);
  expect(rotated.backup_codes.startsWith(underNew)).toBe(true);

  // Under the new secret alone (the old one dropped), both enrolments still decrypt.
  await restarted.runtime.stop();
  after = await startTestRuntime({
    mode: 'web',
    smtpUrl: smtp.url,
    shareWith: { db: before.db, env: { dataDir: before.env.dataDir }, prefix: before.prefix },
    env: { AUTH_SECRET: NEW },
  });
  for (const [address, totpSecret, ip] of [
    [other, otherSecret, '10.77.0.4'],
    [email, secret, '10.77.0.5'],
  ] as const) {
    const c = new TestClient(after.app, ip);
    await c.post('/api/login', { email: address, password: PASSWORD });
    expect((await c.post('/api/login/two-factor', { code: await freshCode(totpSecret) })).status).toBe(200);
  }
}, 120_000);
