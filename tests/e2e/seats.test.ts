import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrPromoteAdmin } from '../../src/modules/accounts/index.ts';
import { axeViolations, launchBrowser } from '../support/browser.ts';
import { aMember, aSale } from '../support/factories.ts';
import { TestClient } from '../support/http-client.ts';
import { startTestServer } from '../support/server.ts';
import { enrolAdmin, passTwoFactor } from '../support/two-factor-browser.ts';

let app: Awaited<ReturnType<typeof startTestServer>>;
let browser: Browser;
let api: TestClient;
let buyer: { id: string; email: string; password: string };

beforeAll(async () => {
  app = await startTestServer();
  await createOrPromoteAdmin(app.runtime.deps.orm, { email: 'seat-admin@example.jp', password: 'seat-admin-pass' });
  await enrolAdmin(app.app, { email: 'seat-admin@example.jp', password: 'seat-admin-pass' });
  await createOrPromoteAdmin(app.runtime.deps.orm, { email: 'seat-admin2@example.jp', password: 'seat-admin2-pass' });
  api = new TestClient(app.app, '10.47.1.1');
  expect((await api.login('seat-admin2@example.jp', 'seat-admin2-pass')).status).toBe(200);
  buyer = await aMember(app.runtime.deps.orm, { lastName: '定員', firstName: '確認' });
  browser = await launchBrowser();
}, 90_000);
afterAll(async () => {
  await browser?.close();
  await app?.stop();
});

async function signIn(page: Page, email: string, password: string) {
  await page.goto(`${app.baseUrl}/login`);
  await page.getByLabel('メールアドレス').fill(email);
  await page.getByLabel('パスワード').fill(password);
  await page.getByRole('button', { name: 'ログインする' }).click();
  await passTwoFactor(page, email);
}
const accessible = async (page: Page, name: string) => expect(await axeViolations(page), name).toEqual([]);

async function licence(fields: Record<string, unknown>) {
  const res = await api.request('POST', '/api/licenses/create', { json: { description: '', price: 5500, ...fields } });
  expect(res.status, await res.clone().text()).toBe(201);
  return (await res.json()).license as { id: number; name: string };
}

describe('seats and sale periods in Chromium', () => {
  it('an administrator enters 定員 and the sale period in Japan time; the edit form shows them back', async () => {
    const page = await browser.newPage();
    await signIn(page, 'seat-admin@example.jp', 'seat-admin-pass');
    await page.waitForURL('**/admin');
    await page.goto(`${app.baseUrl}/admin/licenses/create`);
    await page.getByLabel('ライセンス名（100文字まで）').fill('PALS 定員つき講習');
    await page.getByLabel('価格（円・税込、50〜9,999,999）').fill('22000');
    await page.getByLabel('定員（席数。空欄は定員なし）').fill('30');
    await page.getByLabel('販売開始日時（日本時間。空欄は公開中ずっと）').fill('2026-12-01T00:00');
    await page.getByLabel('販売終了日時（日本時間。この日時以降は購入不可）').fill('2027-01-31T23:59');
    await accessible(page, 'create form with seats');
    await page.getByRole('button', { name: '確認画面へ進む' }).click();
    await page.waitForURL('**/admin/licenses/create/confirm');
    await page.getByText('30席').waitFor();
    await page.getByText('2026-12-01 00:00 〜 2027-01-31 23:59').waitFor();
    await accessible(page, 'confirm with seats');
    await page.getByRole('button', { name: '登録する' }).click();
    await page.waitForURL(/\/admin\/licenses\/\d+$/);
    const id = Number(page.url().split('/').pop());
    const stored = (await (await api.get(`/api/licenses/${id}`)).json()).license;
    expect(stored).toMatchObject({
      capacity: 30,
      sale_starts_at: '2026-11-30T15:00:00.000Z',
      sale_ends_at: '2027-01-31T14:59:00.000Z',
    });
    await page.goto(`${app.baseUrl}/admin/licenses/${id}/edit`);
    expect(await page.getByLabel('定員（席数。空欄は定員なし）').inputValue()).toBe('30');
    expect(await page.getByLabel('販売開始日時（日本時間。空欄は公開中ずっと）').inputValue()).toBe('2026-12-01T00:00');
    await page.close();
  });

  it('the catalogue shows 販売開始前・残りわずか・満席・販売終了; detail and procedure offer no payment then', async () => {
    const soon = await licence({ name: '開始前の講習', sale_starts_at: '2099-12-01T00:00' });
    const few = await licence({ name: '残り少ない講習', capacity: 3 });
    const full = await licence({ name: '満席の講習', capacity: 1 });
    await aSale(app.runtime.deps.orm, full.id);
    const ended = await licence({ name: '終了した講習', sale_ends_at: '2026-01-01T00:00' });
    const held = await licence({ name: '購入済みの講習' });
    await aSale(app.runtime.deps.orm, held.id, { userId: buyer.id });

    const page = await browser.newPage();
    await signIn(page, buyer.email, buyer.password);
    await page.waitForURL((url) => !url.pathname.startsWith('/login'));
    await page.goto(`${app.baseUrl}/licenses`);
    const card = (name: string) => page.locator('.license-card', { hasText: name });
    await card(soon.name).getByText('販売開始前（12月1日から）').waitFor();
    await card(few.name).getByText('残りわずか（残り3席）').waitFor();
    await card(full.name).getByText('満席', { exact: true }).waitFor();
    await card(ended.name).getByText('販売終了', { exact: true }).waitFor();
    await accessible(page, 'catalogue with sale badges');

    await page.goto(`${app.baseUrl}/licenses/${full.id}`);
    await page.getByText('満席のため、現在お申し込みいただけません。').waitFor();
    expect(await page.getByRole('link', { name: '購入手続きへ進む' }).count()).toBe(0);
    await accessible(page, 'sold-out detail');

    for (const [id, state] of [
      [full.id, '満席'],
      [ended.id, '販売期間外です。このライセンスの販売は終了しました。'],
      [held.id, '購入済み'],
    ] as const) {
      await page.goto(`${app.baseUrl}/licenses/${id}/procedure`);
      await page.getByText(state, { exact: true }).first().waitFor();
      expect(await page.getByRole('button', { name: 'お支払いへ進む' }).isDisabled(), state).toBe(true);
    }
    await accessible(page, 'procedure of a held licence');

    await page.goto(`${app.baseUrl}/licenses/${few.id}/procedure`);
    await page.getByText('見積書（PDF）を作成する').click();
    await page.getByLabel('宛名（60文字以内・敬称なし）').fill('〇〇市消防局 警防課');
    await accessible(page, 'procedure with the quotation form');
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: '見積書を作成' }).click(),
    ]);
    expect(download.suggestedFilename()).toMatch(/^御見積書_QT-\d{4}-[0-9A-Z]{6}\.pdf$/);
    await page.getByText(/見積書（見積番号 QT-\d{4}-[0-9A-Z]{6}）をダウンロードしました。/).waitFor();
    expect(await page.getByRole('button', { name: 'お支払いへ進む' }).isDisabled()).toBe(false);
    await page.close();
  });
});
