import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { db as kyselyOf } from '../../src/db/kysely.ts';
import type { Em } from '../../src/db/orm.ts';
import { createLicense } from '../../src/modules/licenses/index.ts';
import { aMember, anAdmin } from '../support/factories.ts';
import { TestClient } from '../support/http-client.ts';
import { pdfText } from '../support/pdf.ts';
import { type ShopWithStripe, startShopWithStripe } from '../support/stripe.ts';
import { eventually } from '../support/wait.ts';

// 見積書・請求書 in the back office: the lists, their search, who may read them, and the same PDF again.

let shop: ShopWithStripe;
let admin: TestClient;
let licenseId: number;
let seq = 0;

beforeAll(async () => {
  shop = await startShopWithStripe();
  licenseId = (
    await createLicense(
      shop.runtime.deps.orm,
      shop.runtime.deps.files,
      { id: 'test', email: 'test' },
      { name: 'ICLS 救急蘇生講習ライセンス', description: '', price: 16_500 },
      [],
    )
  ).id;
  const staff = await anAdmin(shop.runtime.deps.orm);
  admin = new TestClient(shop.app, '10.71.0.1');
  expect((await admin.login(staff.email, staff.password)).status).toBe(200);
}, 60_000);
afterAll(async () => {
  await shop?.stop();
});

async function member(lastName = '見積', firstName = `花子${++seq}`) {
  const email = `documents${++seq}-${Date.now()}@example.jp`;
  const user = await aMember(shop.runtime.deps.orm, { email, password: 'buyer-pass-123', lastName, firstName });
  const client = new TestClient(shop.app, `10.71.1.${seq}`);
  expect((await client.login(email, 'buyer-pass-123')).status).toBe(200);
  return { client, id: user.id, email };
}
type Member = Awaited<ReturnType<typeof member>>;

async function quote(buyer: Member, addressee = '〇〇市消防局 警防課') {
  const res = await buyer.client.get(
    `/api/licenses/${licenseId}/quotation?${new URLSearchParams({ addressee, honorific: '御中' })}`,
  );
  expect(res.status).toBe(200);
  return { number: res.headers.get('x-quotation-number') as string, text: await pdfText(res) };
}

const list = async (path: string, query: Record<string, string> = {}) => {
  const res = await admin.get(`${path}?${new URLSearchParams(query)}`);
  expect(res.status, await res.clone().text()).toBe(200);
  return res.json();
};

const auditOf = async (action: string, number: string) =>
  (await list('/api/audit-logs', { action, target_id: number })).audit_logs as { target_id: string }[];

describe('GET /api/quotations', () => {
  it('lists them newest first with the member, licence and 税込 amount; finds one by its number or its member', async () => {
    const first = await member('消防', '一郎');
    const second = await member();
    const a = await quote(first);
    const b = await quote(first, '△△病院');
    const c = await quote(second);
    const all = await list('/api/quotations');
    expect(all).toMatchObject({ total: 3, page: 1, per_page: 20, total_capped: false, members_capped: false });
    expect(all.quotations.map((q: { quotation_number: string }) => q.quotation_number)).toEqual([c.number, b.number, a.number]);
    expect(all.quotations[2]).toMatchObject({
      quotation_number: a.number,
      user_id: first.id,
      user: { last_name: '消防', first_name: '一郎', email: first.email },
      license_id: licenseId,
      license_name: 'ICLS 救急蘇生講習ライセンス',
      amount: 16_500,
      addressee: '〇〇市消防局 警防課 御中',
    });
    const dates = all.quotations[2];
    expect(new Date(dates.expires_at).getTime() - new Date(dates.issued_at).getTime()).toBe(30 * 86_400_000);

    const numbers = async (q: string) =>
      (await list('/api/quotations', { q })).quotations.map((row: { quotation_number: string }) => row.quotation_number);
    expect(await numbers(a.number)).toEqual([a.number]);
    // As read over the phone: any case, no hyphens, full width, from its start.
    expect(await numbers(a.number.replaceAll('-', '').toLowerCase())).toEqual([a.number]);
    expect(await numbers(a.number.slice(0, 10))).toContain(a.number);
    expect(await numbers(`ＱＴ－${a.number.slice(3)}`)).toEqual([a.number]);
    expect(await numbers(first.email)).toEqual([b.number, a.number]);
    expect(await numbers('消防 一郎')).toEqual([b.number, a.number]);
    // Who phones is often the organisation: the words of the printed 宛名.
    expect(await numbers('△△病院')).toEqual([b.number]);
    expect(await numbers('市消防局')).toEqual([c.number, a.number]);
    expect(await numbers('QT-0000-000000')).toEqual([]);
    // Pages of the one page/per_page rule.
    const second1 = await list('/api/quotations', { per_page: '2', page: '2' });
    expect(second1).toMatchObject({ total: 3, page: 2, per_page: 2 });
    expect(second1.quotations.map((q: { quotation_number: string }) => q.quotation_number)).toEqual([a.number]);
    // A 宛名 typed in full width is found in half width, and the other way round.
    const wide = await quote(second, 'ＡＢＣ広域消防組合');
    expect(await numbers('abc広域')).toEqual([wide.number]);
  });

  it('gives the same 御見積書 again to an administrator, audited; one issued before the 宛名 was kept prints none', async () => {
    const buyer = await member();
    const issued = await quote(buyer, '□□消防組合');
    const again = await pdfText(await admin.get(`/api/quotations/${issued.number}/pdf`));
    expect(again).toBe(issued.text);
    expect(again).toContain(`見積番号 ${issued.number}`);
    expect(again).toContain('□□消防組合 御中');
    expect(await auditOf('quotation.download', issued.number)).toHaveLength(1);

    const older = await quote(buyer, '旧式の宛名');
    await kyselyOf(shop.runtime.deps.orm.em.fork() as Em)
      .updateTable('quotations')
      .set({ addressee: null })
      .where('quotation_number', '=', older.number)
      .execute();
    const [row] = (await list('/api/quotations', { q: older.number })).quotations;
    expect(row.addressee).toBeNull();
    const blank = await pdfText(await admin.get(`/api/quotations/${older.number}/pdf`));
    expect(blank).toContain(`見積番号 ${older.number}`);
    expect(blank).not.toContain('旧式の宛名');
    // Not a number at all (a NUL PostgreSQL would refuse): no such page, never a 500.
    expect((await admin.get('/api/quotations/QT%00/pdf')).status).toBe(404);
    expect((await admin.get('/api/invoices/%E2%80%AE/pdf')).status).toBe(404);
    const unknown = await admin.get('/api/quotations/QT-0000-000000/pdf');
    expect(unknown.status).toBe(404);
    expect((await unknown.json()).message).toContain('見つかりませんでした');
  });
});

describe('who may read them, and bad input', () => {
  it('403 for a member (no sales:read), 200 for a viewer; 422 in Japanese for a bad page, size or search', async () => {
    const buyer = await member();
    const { number } = await quote(buyer);
    for (const path of [
      '/api/quotations',
      '/api/invoices',
      `/api/quotations/${number}/pdf`,
      '/api/invoices/INV-LS-0000-000000/pdf',
    ]) {
      const res = await buyer.client.get(path);
      expect(res.status, path).toBe(403);
    }
    const viewer = await member('閲覧', '係');
    expect((await admin.put(`/api/users/${viewer.id}/role`, { role: 'viewer' })).status).toBe(200);
    const staff = new TestClient(shop.app, '10.71.2.1');
    expect((await staff.login(viewer.email, 'buyer-pass-123')).status).toBe(200);
    expect((await staff.get('/api/quotations')).status).toBe(200);
    expect((await staff.get(`/api/quotations/${number}/pdf`)).status).toBe(200);

    const cases: [string, Record<string, string>, string][] = [
      ['/api/quotations', { page: '0' }, 'page'],
      ['/api/quotations', { per_page: '101' }, 'per_page'],
      ['/api/invoices', { page: 'x' }, 'page'],
      ['/api/invoices', { q: 'あ'.repeat(255) }, 'q'],
      ['/api/quotations', { q: 'QT\u0000' }, 'q'],
    ];
    for (const [path, query, field] of cases) {
      const res = await admin.get(`${path}?${new URLSearchParams(query)}`);
      expect(res.status, `${path} ${JSON.stringify(query)}`).toBe(422);
      const body = await res.json();
      expect(body.message).toBe('不正な値が入力されました。');
      expect(body.errors[field][0]).toMatch(/正しくありません|254文字以内|使用できない文字/);
    }
  });
});

/** Starts a purchase and chooses 銀行振込 on the emulator's hosted page, as a member would. */
async function transferOrder(buyer: Member) {
  const res = await buyer.client.post('/api/licenses/stripe', { licenseId, distribution: true });
  expect(res.status, await res.clone().text()).toBe(200);
  const sessionId = new URL((await res.json()).url).pathname.split('/').pop() as string;
  const chosen = await fetch(`${shop.stripeUrl}/c/pay/${sessionId}/bank_transfer`, { method: 'POST', redirect: 'manual' });
  expect(chosen.status).toBe(303);
  const orderNumber = await eventually(
    async () => {
      const status = await (await buyer.client.get(`/api/checkout/sessions/${sessionId}`)).json();
      return status.bank_transfer ? (status.order_number as string) : null;
    },
    15_000,
    'the bank details',
  );
  return { sessionId, orderNumber };
}

describe('GET /api/invoices', () => {
  it('lists an invoice with its order, due date and downloads; the administrator’s copy is the same PDF, not counted, after payment too', async () => {
    const buyer = await member('請求', '次郎');
    const { sessionId, orderNumber } = await transferOrder(buyer);
    const path = `/api/users/${buyer.id}/orders/${orderNumber}/invoice?addressee=organisation`;
    const issued = await pdfText(await buyer.client.get(path));
    await pdfText(await buyer.client.get(path));
    const number = `INV-${orderNumber}`;

    const found = await list('/api/invoices', { q: orderNumber });
    expect(found.total).toBe(1);
    expect(found.invoices[0]).toMatchObject({
      invoice_number: number,
      order_number: orderNumber,
      user_id: buyer.id,
      user: { last_name: '請求', first_name: '次郎', email: buyer.email },
      license_name: 'ICLS 救急蘇生講習ライセンス',
      amount: 16_500,
      addressee: '〇〇消防局 御中',
      downloads: 2,
    });
    expect(found.invoices[0].due_at).toEqual(expect.any(String));
    for (const q of [number, number.toLowerCase().replaceAll('-', ''), orderNumber.slice(0, 9), buyer.email, '〇〇消防局']) {
      expect(
        (await list('/api/invoices', { q })).invoices.map((i: { invoice_number: string }) => i.invoice_number),
        q,
      ).toEqual([number]);
    }
    expect((await list('/api/invoices', { q: `${number}-2` })).total).toBe(0);

    const again = await pdfText(await admin.get(`/api/invoices/${number}/pdf`));
    expect(again).toBe(issued);
    expect(again).toContain(`請求書番号 ${number}`);
    expect((await list('/api/invoices', { q: number })).invoices[0].downloads).toBe(2);
    expect(await auditOf('invoice.download', number)).toHaveLength(1);

    await fetch(`${shop.stripeUrl}/_emulator/sessions/${sessionId}/bank-transfer/paid`, { method: 'POST' });
    await eventually(
      async () => (await (await buyer.client.get(`/api/checkout/sessions/${sessionId}`)).json()).sale_id,
      15_000,
      'the sale',
    );
    expect(await pdfText(await admin.get(`/api/invoices/${number}/pdf`))).toBe(issued);
    expect((await admin.get('/api/invoices/INV-LS-0000-000000/pdf')).status).toBe(404);
  });
});
