import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { Browser, CDPSession, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { db as kysely, millisecondsAgo, now } from '../../src/db/kysely.ts';
import type { Em } from '../../src/db/orm.ts';
import { axeViolations, launchBrowser } from '../support/browser.ts';
import { confirmInDialog } from '../support/confirm-dialog.ts';
import { aMember } from '../support/factories.ts';
import { TestClient } from '../support/http-client.ts';
import { freePort } from '../support/ports.ts';
import { startTestServer } from '../support/server.ts';
import { listed } from '../support/two-factor-browser.ts';

/**
 * Passkeys against a stolen session and authenticators that do not verify their user, in Chromium
 * with the DevTools virtual authenticator. "Forged" calls are what a modified client could send:
 * options asking for no user verification, answered by the real authenticator, posted to the API.
 */
let app: Awaited<ReturnType<typeof startTestServer>>;
let browser: Browser;
let origin: string;
const PASSWORD = 'e2e-passkey-pass-1';
/** Answers wait on argon2 and the authenticator: generous on a loaded machine. */
const SLOW = { timeout: 15_000 };

beforeAll(async () => {
  // WebAuthn needs a domain, not an IP address: the shop is reached as localhost.
  const port = await freePort();
  origin = `http://localhost:${port}`;
  app = await startTestServer({ port, env: { APP_URL: origin } });
  browser = await launchBrowser();
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await app?.stop();
});

const db = () => kysely(app.runtime.deps.orm.em.fork() as Em);
const passkeysOf = async (userId: string) =>
  (await db().selectFrom('passkeys').select('name').where('user_id', '=', userId).execute()).map((row) => row.name);

async function member(email: string): Promise<string> {
  return (await aMember(app.runtime.deps.orm, { email, password: PASSWORD, lastName: '鍵', firstName: '花子' })).id;
}

async function signIn(page: Page, email: string) {
  await page.goto(`${origin}/login`);
  await page.getByLabel('メールアドレス').fill(email);
  await page.getByLabel('パスワード').fill(PASSWORD);
  await page.getByRole('button', { name: 'ログインする' }).click();
  await page.waitForURL((url) => !url.pathname.startsWith('/login'));
}

async function virtualAuthenticator(page: Page, userVerification: boolean): Promise<{ cdp: CDPSession; id: string }> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: userVerification,
      isUserVerified: userVerification,
      automaticPresenceSimulation: true,
    },
  });
  return { cdp, id: authenticatorId };
}

/** A POST from the page as the SPA makes it (CSRF header from the cookie), answered as `{status, body}`. */
async function postFromPage(page: Page, path: string, body: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  return page.evaluate(
    async ([path, body]) => {
      const token = document.cookie
        .split('; ')
        .find((part) => part.startsWith('XSRF-TOKEN='))
        ?.slice('XSRF-TOKEN='.length);
      const res = await fetch(path as string, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-xsrf-token': decodeURIComponent(token ?? '') },
        body: JSON.stringify(body),
      });
      return { status: res.status, body: await res.json() };
    },
    [path, body] as const,
  );
}

/** Registration as a modified client would do it: the real options, but asking for no user verification. */
async function forgedRegistration(page: Page) {
  const { body } = await postFromPage(page, '/api/me/passkeys/options', { password: PASSWORD });
  const response = await page.evaluate(async (options) => {
    const json = options as { authenticatorSelection: Record<string, unknown> };
    json.authenticatorSelection = { ...json.authenticatorSelection, userVerification: 'discouraged' };
    const pkc = PublicKeyCredential as unknown as {
      parseCreationOptionsFromJSON(o: unknown): PublicKeyCredentialCreationOptions;
    };
    const credential = (await navigator.credentials.create({ publicKey: pkc.parseCreationOptionsFromJSON(json) })) as
      | (Credential & { toJSON(): unknown })
      | null;
    return credential?.toJSON();
  }, body.options);
  return postFromPage(page, '/api/me/passkeys', { response, name: '改造クライアント' });
}

/** Sign-in as a modified client would do it: the real options, but asking for no user verification. */
async function forgedSignIn(page: Page) {
  const { body } = await postFromPage(page, '/api/login/passkey/options', {});
  const response = await page.evaluate(async (options) => {
    const json = { ...(options as object), userVerification: 'discouraged' };
    const pkc = PublicKeyCredential as unknown as { parseRequestOptionsFromJSON(o: unknown): PublicKeyCredentialRequestOptions };
    const credential = (await navigator.credentials.get({ publicKey: pkc.parseRequestOptionsFromJSON(json) })) as
      | (Credential & { toJSON(): unknown })
      | null;
    return credential?.toJSON();
  }, body.options);
  return postFromPage(page, '/api/login/passkey', { response });
}

async function registerInPage(page: Page, name: string, password = PASSWORD) {
  await page.goto(`${origin}/account/security`);
  await page.getByLabel('パスキーの名前（任意）').fill(name);
  await page.getByRole('button', { name: 'パスキーを登録する' }).click();
  const reauth = page.getByRole('dialog', { name: '本人確認' });
  await reauth.getByLabel('現在のパスワード').fill(password);
  await reauth.getByRole('button', { name: '確認して登録する' }).click();
  return reauth;
}

describe('passkeys behind re-authentication and user verification (Chromium)', () => {
  it('a stolen session (the cookie, no password) cannot add a passkey', async () => {
    const email = 'e2e-pk-stolen@example.jp';
    const id = await member(email);
    const owner = await browser.newContext();
    await signIn(await owner.newPage(), email);

    // The thief's browser gets the owner's cookies, nothing else.
    const thief = await browser.newContext();
    await thief.addCookies(await owner.cookies());
    const page = await thief.newPage();
    page.setDefaultTimeout(10_000);
    const { cdp, id: authenticatorId } = await virtualAuthenticator(page, true);
    const reauth = await registerInPage(page, '盗んだ端末', 'guess-pass-123');
    await expect.poll(() => reauth.getByText('現在のパスワードが正しくありません。').count(), SLOW).toBeGreaterThan(0);
    expect(await axeViolations(page)).toEqual([]);
    await reauth.getByRole('button', { name: 'キャンセル' }).click();

    const bare = await postFromPage(page, '/api/me/passkeys/options', {});
    expect(bare.status).toBe(403);
    expect(bare.body.code).toBe('reauthentication_required');
    const direct = await postFromPage(page, '/api/me/passkeys', { response: { id: 'x', response: {} } });
    expect(direct.status).toBe(403);
    const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
    expect(credentials).toEqual([]);
    expect(await passkeysOf(id)).toEqual([]);
    await thief.close();
    await owner.close();
  }, 60_000);

  it('refuses a registration from an authenticator without user verification', async () => {
    const email = 'e2e-pk-no-uv@example.jp';
    const id = await member(email);
    const context = await browser.newContext();
    const page = await context.newPage();
    page.setDefaultTimeout(10_000);
    await signIn(page, email);
    await virtualAuthenticator(page, false);

    // The page asks for verification: the browser cannot give it, and nothing is registered.
    await registerInPage(page, 'PINなし');
    await expect.poll(() => page.locator('[data-form-alert]').count(), SLOW).toBeGreaterThan(0);
    // A modified client asking for none gets the attestation without the UV flag: refused.
    const forged = await forgedRegistration(page);
    expect(forged.status).toBe(422);
    expect((forged.body.errors as Record<string, string[]>).response?.[0]).toContain('本人確認に対応していない');
    expect(await passkeysOf(id)).toEqual([]);
    await context.close();
  }, 60_000);

  it('signs in only with user verification; the password page lists passkeys; a reset removes them and every session', async () => {
    const email = 'e2e-pk-owner@example.jp';
    const id = await member(email);
    const context = await browser.newContext();
    const page = await context.newPage();
    page.setDefaultTimeout(10_000);
    await signIn(page, email);
    const { cdp, id: authenticatorId } = await virtualAuthenticator(page, true);
    await registerInPage(page, '仕事用パソコン');
    await listed(page, '仕事用パソコン');

    // The password change screen lists them, each with 削除.
    await page.goto(`${origin}/users/${id}/password`);
    await listed(page, '仕事用パソコン');
    const list = page.getByRole('list', { name: '登録済みのパスキー' });
    expect(await list.getByRole('button', { name: '削除' }).count()).toBe(1);
    expect(await axeViolations(page)).toEqual([]);

    // Signed out, a device that no longer verifies its user does not sign in, even asked not to.
    await context.clearCookies();
    await cdp.send('WebAuthn.setUserVerified', { authenticatorId, isUserVerified: false });
    await page.goto(`${origin}/login`);
    await page.getByRole('button', { name: 'パスキーでログイン' }).click();
    await expect.poll(() => page.locator('[data-form-alert]').count(), SLOW).toBeGreaterThan(0);
    expect(new URL(page.url()).pathname).toBe('/login');
    const forged = await forgedSignIn(page);
    expect(forged.status).toBe(401);
    expect(forged.body.message).toContain('本人確認に対応していない');
    expect((await (await page.request.get(`${origin}/api/login`)).json()).users).toEqual([]);

    // With its PIN or biometrics it does.
    await cdp.send('WebAuthn.setUserVerified', { authenticatorId, isUserVerified: true });
    await page.goto(`${origin}/login`);
    await page.getByRole('button', { name: 'パスキーでログイン' }).click();
    await page.waitForURL((url) => !url.pathname.startsWith('/login'));

    // A reset by e-mailed link: every passkey removed, every session ended.
    const token = randomBytes(32).toString('base64url');
    await kysely(app.runtime.deps.orm.em.fork())
      .insertInto('account_tokens')
      .values({
        id: randomUUID(),
        user_id: id,
        purpose: 'reset-password',
        token_hash: createHash('sha256').update(token).digest('hex'),
        expires_at: millisecondsAgo(-3_600_000), // an hour from now
        created_at: now(),
      })
      .execute();
    const reset = await new TestClient(app.app, '10.93.0.1').post('/api/reset-password', {
      token,
      email,
      password: 'after-reset-pass-2',
      password_confirmation: 'after-reset-pass-2',
    });
    expect(reset.status).toBe(200);
    expect(await passkeysOf(id)).toEqual([]);
    expect(await db().selectFrom('sessions').select('id').where('user_id', '=', id).execute()).toEqual([]);
    expect((await (await page.request.get(`${origin}/api/login`)).json()).users).toEqual([]);
    // The key left on the device signs in no more.
    await page.goto(`${origin}/login`);
    await page.getByRole('button', { name: 'パスキーでログイン' }).click();
    await expect.poll(() => page.locator('[data-form-alert]').count(), SLOW).toBeGreaterThan(0);
    expect(new URL(page.url()).pathname).toBe('/login');
    await context.close();
  }, 90_000);

  it('removes a passkey from the password change screen', async () => {
    const email = 'e2e-pk-remove@example.jp';
    const id = await member(email);
    const context = await browser.newContext();
    const page = await context.newPage();
    page.setDefaultTimeout(10_000);
    await signIn(page, email);
    await virtualAuthenticator(page, true);
    await registerInPage(page, '古いスマートフォン');
    await listed(page, '古いスマートフォン');
    expect(await passkeysOf(id)).toEqual(['古いスマートフォン']);
    await page.goto(`${origin}/users/${id}/password`);
    await page.getByRole('list', { name: '登録済みのパスキー' }).getByRole('button', { name: '削除' }).click();
    expect(await confirmInDialog(page)).toContain('古いスマートフォン');
    await expect.poll(() => page.getByText('登録済みのパスキーはありません。').count(), SLOW).toBe(1);
    expect(await passkeysOf(id)).toEqual([]);
    await context.close();
  }, 60_000);
});
