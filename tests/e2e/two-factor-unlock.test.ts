import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { db as kysely } from '../../src/db/kysely.ts';
import type { Em } from '../../src/db/orm.ts';
import { axeViolations, launchBrowser } from '../support/browser.ts';
import { aMember } from '../support/factories.ts';
import { TestClient } from '../support/http-client.ts';
import { startTestServer } from '../support/server.ts';
import { startSmtp, type TestSmtp } from '../support/smtp.ts';
import { enrolTwoFactor, freshCode, totp } from '../support/two-factor.ts';

// Issue 30 item 8 in Chromium: after 30 wrong codes the sign-in page says codes are stopped, and
// the mailed link's page allows them again, once.
let app: Awaited<ReturnType<typeof startTestServer>>;
let smtp: TestSmtp;
let browser: Browser;
const PASSWORD = 'harbour-quilt-6610';
let n = 0;

beforeAll(async () => {
  smtp = await startSmtp();
  app = await startTestServer({ smtpUrl: smtp.url });
  browser = await launchBrowser();
}, 90_000);
afterAll(async () => {
  await browser?.close();
  await app?.stop();
  await smtp?.close();
});

const client = () => new TestClient(app.app, `10.94.${++n}.1`);

/** 30 wrong codes after the right password, each filled window closed as 15 minutes would close it. */
async function lockOut(email: string, secret: string, userId: string) {
  const wrong = String((Number(totp(secret)) + 500_000) % 1_000_000).padStart(6, '0');
  for (let window = 0; window < 3; window++) {
    for (let challenge = 0; challenge < 2; challenge++) {
      const attacker = client();
      await attacker.post('/api/login', { email, password: PASSWORD });
      for (let i = 0; i < 5; i++) expect((await attacker.post('/api/login/two-factor', { code: wrong })).status).toBe(422);
    }
    await app.runtime.deps.redis.del(`${app.prefix}:ratelimit:signin-fail-account:${email}`);
    await kysely(app.runtime.deps.orm.em.fork() as Em)
      .updateTable('two_factors')
      .set({ failed_verification_count: 0, locked_until: null })
      .where('user_id', '=', userId)
      .execute();
  }
}

async function signIn(page: Page, email: string, code: string) {
  await page.goto(`${app.baseUrl}/login`);
  await page.getByLabel('メールアドレス').fill(email);
  await page.getByLabel('パスワード').fill(PASSWORD);
  await page.getByRole('button', { name: 'ログインする' }).click();
  await page.getByLabel('確認コード').fill(code);
  await page.getByRole('button', { name: '確認してログインする' }).click();
}

describe('two-factor unlock link (Chromium)', () => {
  it('stops codes after three lock-outs and the mailed page allows them again, once', async () => {
    const email = `unlock-${Date.now()}@example.jp`;
    const user = await aMember(app.runtime.deps.orm, {
      email,
      password: PASSWORD,
      lastName: '解除',
      firstName: '花子',
      emailVerified: true,
    });
    const owner = client();
    expect((await owner.login(email, PASSWORD)).status).toBe(200);
    const { secret } = await enrolTwoFactor(owner, email, PASSWORD);
    await lockOut(email, secret, user.id);

    const page = await browser.newPage();
    page.setDefaultTimeout(10_000);
    await signIn(page, email, await freshCode(secret));
    await page.getByText('確認コードによるログインを停止しています').first().waitFor();

    const mail = await smtp.waitFor((m) => smtp.to(email)(m) && /two-factor\/unlock\//.test(m.text ?? ''));
    const link = /(http:\/\/[^\s]+\/two-factor\/unlock\/[A-Za-z0-9_-]+)/.exec(mail.text ?? '')?.[1] as string;
    await page.goto(link);
    await page.getByRole('heading', { name: '確認コードによるログインの再開' }).waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await page.getByRole('button', { name: 'ログインを再開する' }).click();
    await page.getByText('確認コードによるログインを再開しました。').waitFor();
    await page.goto(link);
    await page.getByText('このリンクはすでに使用されています。').waitFor();

    await signIn(page, email, await freshCode(secret));
    await page.waitForURL(`**/users/${user.id}`);
    await page.close();
  }, 120_000);
});
