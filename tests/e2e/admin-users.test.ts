import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { axeViolations, launchBrowser } from '../support/browser.ts';
import { confirmInDialog } from '../support/confirm-dialog.ts';
import { aMember } from '../support/factories.ts';
import { startTestServer } from '../support/server.ts';
import { startSmtp, type TestSmtp } from '../support/smtp.ts';
import { freshCode, secretOf } from '../support/two-factor.ts';
import { anEnrolledAdmin, signInWithTwoFactor } from '../support/two-factor-browser.ts';

let app: Awaited<ReturnType<typeof startTestServer>>;
let browser: Browser;
let smtp: TestSmtp;
const ADMIN = { email: 'users-admin@example.jp', password: 'users-admin-pass' };

beforeAll(async () => {
  smtp = await startSmtp();
  app = await startTestServer({ smtpUrl: smtp.url });
  await anEnrolledAdmin(app, ADMIN);
  for (const [email, last, first, affiliation] of [
    ['kobayashi@example.jp', '小林', '一郎', 1],
    ['kato@example.jp', '加藤', '二郎', 3],
  ] as const) {
    await aMember(app.runtime.deps.orm, {
      email,
      password: 'member-pass-123',
      lastName: last,
      firstName: first,
      emailVerified: true,
      affiliation,
      affiliationName: '本部',
    });
  }
  browser = await launchBrowser();
}, 90_000);
afterAll(async () => {
  await browser?.close();
  await app?.stop();
  await smtp?.close();
});

const accessible = async (page: Page, name: string) => expect(await axeViolations(page), name).toEqual([]);

it('an administrator searches, edits, resets a password and deletes a user', async () => {
  const page = await browser.newPage();
  await signInWithTwoFactor(page, app.baseUrl, ADMIN, '**/admin');
  await page.getByRole('link', { name: 'ユーザー一覧' }).click();
  await page.waitForURL('**/admin/users');
  await page.getByRole('link', { name: '小林 一郎' }).waitFor();
  await accessible(page, 'user list');

  await page.getByLabel('所属').selectOption('3');
  await page.getByRole('button', { name: '検索する' }).click();
  await page.waitForURL(/affiliations=3/);
  await page.getByRole('link', { name: '加藤 二郎' }).waitFor();
  expect(await page.getByRole('link', { name: '小林 一郎' }).count()).toBe(0);

  await page.getByRole('link', { name: '加藤 二郎' }).click();
  await page.getByRole('heading', { name: '購入履歴' }).waitFor();
  await accessible(page, 'user detail');
  await page.getByRole('link', { name: '編集する' }).click();
  await page.getByLabel('所属名').fill('第三管区');
  await page.getByRole('button', { name: '確認画面へ進む' }).click();
  await page.waitForURL('**/edit/confirm');
  await page.getByRole('button', { name: '保存する' }).click();
  await page.getByText('会員情報を更新しました。').waitFor();
  expect(await page.locator('.summary').textContent()).toContain('第三管区');

  await page.getByRole('link', { name: 'パスワードを変更する' }).click();
  await page.getByLabel('新しいパスワード（8〜72文字）').fill('admin-set-pass-1');
  await page.getByLabel('新しいパスワード（確認）').fill('admin-set-pass-1');
  await accessible(page, 'force password');
  await page.getByRole('button', { name: 'パスワードを変更する' }).click();
  await page.getByText('すべての端末でログアウトされました', { exact: false }).waitFor();

  await page.getByRole('link', { name: '削除する' }).click();
  await page.getByText('この操作は取り消せません。').waitFor();
  await accessible(page, 'delete');
  await page.getByRole('button', { name: '削除する' }).click();
  await page.waitForURL(/\/admin\/users$/);
  await page.getByText('ユーザーを削除しました。', { exact: false }).waitFor();
  expect(await page.getByRole('link', { name: '加藤 二郎' }).count()).toBe(0);
  await page.close();
});

it('an administrator resends a verification mail, sees it refused and retried in the mail log, and grants administrator rights', async () => {
  const email = 'suzuki@example.jp';
  const member = await aMember(app.runtime.deps.orm, {
    email,
    password: 'member-pass-123',
    lastName: '鈴木',
    firstName: '三郎',
    emailVerified: false,
    affiliation: 5,
    affiliationName: '中央病院',
  });
  // Registration's verification mail goes out first.
  await smtp.waitFor(smtp.to(email));

  const page = await browser.newPage({ viewport: { width: 375, height: 800 } });
  await signInWithTwoFactor(page, app.baseUrl, ADMIN, '**/admin');
  await page.goto(`${app.baseUrl}/admin/users/${member.id}`);
  const mails = page.getByRole('region', { name: 'メール送信履歴' });
  const history = page.getByRole('region', { name: '操作履歴' });
  await mails.getByRole('cell', { name: `メールアドレスの確認 ${email}` }).waitFor();
  await expect.poll(() => mails.getByRole('row').count()).toBe(2);
  expect(await mails.getByRole('row').nth(1).textContent()).toContain('送信済み');
  await history.getByText('このユーザーに対する管理者の操作はまだありません。').waitFor();
  await accessible(page, 'user page with mail log');

  // The mail server refuses the resent mail: the log says so, with the server's answer.
  smtp.refuse(email);
  await page.getByRole('button', { name: '確認メールを再送する' }).click();
  await page.getByText(`${email} に確認メールを送信しました。`, { exact: false }).waitFor();
  await mails.getByText('送信失敗', { exact: false }).waitFor({ timeout: 15_000 });
  expect(await mails.getByText('メールサーバーの応答：', { exact: false }).textContent()).toContain('550');
  await history.getByText('確認メールの再送信').waitFor();
  await accessible(page, 'mail log with a failed mail');

  // Refused for good (550): not retried. The mailbox is fixed and the mail resent from 送信に失敗したメール;
  // back on the user page, the log shows it sent.
  await mails.getByText('宛先が拒否', { exact: false }).waitFor();
  smtp.accept(email);
  await page.goto(`${app.baseUrl}/admin/mails`);
  await page.getByRole('button', { name: `${email} 宛ての「メールアドレスの確認」を再送信` }).click();
  expect(await confirmInDialog(page)).toContain(`${email} 宛ての「メールアドレスの確認」を1通、もう一度送ります。`);
  await page.getByText('メールの再送信を受け付けました。', { exact: false }).waitFor();
  await expect
    .poll(
      async () =>
        (
          await app.runtime.deps.orm.em
            .fork()
            .execute<{ n: number }[]>("select count(*)::int as n from mail_deliveries where user_id = ? and status = 'sent'", [
              member.id,
            ])
        )[0]?.n,
      { timeout: 20_000 },
    )
    .toBe(2);
  await page.goto(`${app.baseUrl}/admin/users/${member.id}`);
  await mails.getByText(/送信済み（[2-9]回目で送信）/).waitFor({ timeout: 20_000 });
  expect(smtp.messages.filter(smtp.to(email))).toHaveLength(2);

  // Role grant, confirmed in a dialog; the audit section records it.
  await page.getByLabel('役割').selectOption('admin');
  await page.getByRole('button', { name: '役割を変更する' }).click();
  expect(await confirmInDialog(page)).toContain('の役割を「管理者」にします。管理画面のすべての操作ができるようになります。');
  await page.getByText('役割を「管理者」にしました。').waitFor();
  await expect.poll(() => page.locator('.summary').textContent()).toContain('役割管理者');
  await history.getByText('役割の変更').waitFor();
  const newest = await history.getByRole('listitem').first().textContent();
  expect(newest).toContain('users-admin@example.jp');
  expect(newest).toContain('一般会員 → 管理者');
  await accessible(page, 'after the role grant');
  await page.close();
});

it('an edit saved over a newer version is refused and offers the latest', async () => {
  const member = await aMember(app.runtime.deps.orm, {
    email: 'ito@example.jp',
    password: 'member-pass-123',
    lastName: '伊藤',
    firstName: '五郎',
    emailVerified: true,
    affiliation: 2,
    affiliationName: '北署',
  });
  const page = await browser.newPage();
  await signInWithTwoFactor(page, app.baseUrl, ADMIN, '**/admin');
  await page.goto(`${app.baseUrl}/admin/users/${member.id}/edit`);
  await page.getByLabel('所属名').fill('南署');
  await page.getByRole('button', { name: '確認画面へ進む' }).click();
  await page.waitForURL('**/edit/confirm');

  // Meanwhile another administrator saves the user.
  await app.runtime.deps.orm.em
    .fork()
    .execute("update users set affiliation_name = '西署', updated_at = now() where id = ?", [member.id]);

  await page.getByRole('button', { name: '保存する' }).click();
  await page.getByText('別の画面または管理者によって先に更新されています', { exact: false }).waitFor();
  expect(await page.getByRole('button', { name: '保存する' }).isDisabled()).toBe(true);
  await accessible(page, 'stale edit');
  await page.getByRole('button', { name: '最新の内容を読み込む' }).click();
  await page.waitForURL(/\/edit$/);
  await expect.poll(() => page.getByLabel('所属名').inputValue()).toBe('西署');
  await page.getByLabel('所属名').fill('東署');
  await page.getByRole('button', { name: '確認画面へ進む' }).click();
  await page.getByRole('button', { name: '保存する' }).click();
  await page.getByText('会員情報を更新しました。').waitFor();
  expect(await page.locator('.summary').first().textContent()).toContain('東署');
  await page.close();
});

it('an administrator changing their own e-mail confirms it with the password and a code', async () => {
  const self = await anEnrolledAdmin(app, {
    email: 'self-admin@example.jp',
    password: 'self-admin-pass',
    lastName: '管理',
    firstName: '自身',
  });
  const page = await browser.newPage();
  await signInWithTwoFactor(page, app.baseUrl, self, '**/admin');

  await page.goto(`${app.baseUrl}/admin/users/${self.id}/edit`);
  await page.getByLabel('メールアドレス', { exact: true }).fill('self-admin-moved@example.jp');
  await page.getByLabel('メールアドレス（確認）').fill('self-admin-moved@example.jp');
  // An administrator made by admin:create has no affiliation yet.
  await page.getByLabel('所属', { exact: true }).selectOption('1');
  await page.getByLabel('所属名').fill('本部');
  await page.getByRole('button', { name: '確認画面へ進む' }).click();
  await page.waitForURL('**/edit/confirm');
  await page.getByRole('button', { name: '保存する' }).click();
  await page.getByText('現在のパスワードを入力してください。', { exact: true }).waitFor();
  await accessible(page, 'own e-mail change');

  await page.getByLabel('現在のパスワード').fill(self.password);
  await page.getByLabel('確認コード（認証アプリの6桁）').fill(await freshCode(secretOf(self.email) ?? ''));
  await page.getByRole('button', { name: '保存する' }).click();
  await page.getByText('メールアドレスはすぐに変更され', { exact: false }).waitFor();
  const saved = await app.runtime.deps.orm.em.fork().execute('select email from users where id = ?', [self.id]);
  expect(saved[0]?.email).toBe('self-admin-moved@example.jp');
  await page.close();
});
