import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrPromoteAdmin } from '../../src/modules/accounts/index.ts';
import { createLicense } from '../../src/modules/licenses/index.ts';
import { receiptIssuer } from '../../src/site-settings.ts';
import { aMember } from '../support/factories.ts';
import { TestClient } from '../support/http-client.ts';
import { buyThroughStripe, type ShopWithStripe, startShopWithStripe } from '../support/stripe.ts';
import { eventually } from '../support/wait.ts';

const run = promisify(execFile);

let shop: ShopWithStripe;
let licenseId: number;
let admin: TestClient;
let scratch: string;
let seq = 0;

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'receipt-test-'));
  shop = await startShopWithStripe();
  const license = await createLicense(
    shop.runtime.deps.orm,
    shop.runtime.deps.files,
    { id: 'test', email: 'test' },
    { name: 'BLS プロバイダー講習ライセンス', description: '', price: 3000 },
    [],
  );
  licenseId = license.id;
  await createOrPromoteAdmin(shop.runtime.deps.orm, { email: 'receipt-admin@example.jp', password: 'admin-pass-123' });
  admin = new TestClient(shop.app, '10.30.9.9');
  expect((await admin.login('receipt-admin@example.jp', 'admin-pass-123')).status).toBe(200);
}, 60_000);
afterAll(async () => {
  await shop?.stop();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

async function member(affiliationName = '〇〇市消防局') {
  const email = `receipt${++seq}-${Date.now()}@example.jp`;
  const user = await aMember(shop.runtime.deps.orm, {
    email,
    password: 'buyer-pass-123',
    lastName: '領収',
    firstName: `花子${seq}`,
    emailVerified: true,
    affiliation: 4,
    affiliationName,
  });
  const client = new TestClient(shop.app, `10.30.0.${seq}`);
  expect((await client.login(email, 'buyer-pass-123')).status).toBe(200);
  return { client, id: user.id, email, name: `領収 花子${seq}` };
}

const buy = (buyer: Awaited<ReturnType<typeof member>>, method: 'card' | 'konbini' = 'card') =>
  buyThroughStripe(shop, buyer.client, licenseId, method);

/** The PDF's text as poppler's pdftotext reads it (in reading order by line), whitespace runs made one space. */
async function pdfText(res: Response): Promise<string> {
  expect(res.status, res.status === 200 ? '' : await res.clone().text()).toBe(200);
  expect(res.headers.get('content-type')).toBe('application/pdf');
  const bytes = Buffer.from(await res.arrayBuffer());
  expect(bytes.subarray(0, 5).toString('latin1')).toBe('%PDF-');
  const file = join(scratch, `r${++seq}.pdf`);
  await writeFile(file, bytes);
  const { stdout } = await run('pdftotext', ['-layout', '-enc', 'UTF-8', file, '-']);
  return stdout.replace(/\s+/g, ' ');
}

async function fonts(res: Response): Promise<string> {
  const file = join(scratch, `f${++seq}.pdf`);
  await writeFile(file, Buffer.from(await res.arrayBuffer()));
  return (await run('pdffonts', [file])).stdout;
}

const issueCount = async (saleId: number) =>
  (await shop.runtime.deps.orm.em.fork().execute('select issue_count from sale_receipts where sale_id = ?', [saleId]))[0]
    ?.issue_count as number | undefined;

describe('GET /api/sales/{id}/receipt', () => {
  it('issues a 適格簡易請求書 with the chosen organisation, the licence, tax, T-number and receipt number', async () => {
    const buyer = await member();
    const { saleId } = await buy(buyer);

    const before = await (await buyer.client.get(`/api/sales/${saleId}/receipt-addressee`)).json();
    expect(before).toMatchObject({
      sale_id: saleId,
      issued: false,
      issue_count: 0,
      addressee_kind: null,
      options: [
        { value: 'name', label: `${buyer.name} 様` },
        { value: 'organisation', label: '〇〇市消防局 御中' },
      ],
    });
    // No addressee chosen yet: the PDF is not made (a link followed from elsewhere cannot fix it).
    const unchosen = await buyer.client.get(`/api/sales/${saleId}/receipt`);
    expect(unchosen.status).toBe(409);
    expect((await unchosen.json()).message).toBe('領収書の宛名を選んでから発行してください。');

    // Chosen, changed before the first issue.
    expect((await buyer.client.put(`/api/sales/${saleId}/receipt-addressee`, { addressee: 'name' })).status).toBe(200);
    const chosen = await buyer.client.put(`/api/sales/${saleId}/receipt-addressee`, { addressee: 'organisation' });
    expect(chosen.status).toBe(200);
    expect(await chosen.json()).toMatchObject({
      receipt: { addressee_kind: 'organisation', addressee: '〇〇市消防局 御中', issued: false },
      message: '領収書の宛名を「〇〇市消防局 御中」にしました。',
    });

    const ordered = (await (await buyer.client.get(`/api/sales/${saleId}/receipt-addressee`)).json()) as { order_number: string };
    const res = await buyer.client.get(`/api/sales/${saleId}/receipt`);
    expect(res.headers.get('content-disposition')).toContain(`filename="receipt_R-${String(saleId).padStart(8, '0')}.pdf"`);
    expect(res.headers.get('cache-control')).toContain('no-store');
    const text = await pdfText(res.clone());
    const number = `R-${String(saleId).padStart(8, '0')}`;
    expect(text).toContain('領 収 書');
    expect(text).toContain('〇〇市消防局 御中');
    expect(text).not.toContain(buyer.name);
    // 但し書き: the default, as Japanese receipts print it; the licence is named in the 内訳.
    expect(text).toContain('但し ライセンス代として');
    expect(text).toContain('金額 ¥3,000- （税込）');
    // ¥3,000 × 10/110 = 272.72…: rounded down, once for the receipt (not 273).
    expect(text).toContain('うち消費税（10%）¥272');
    expect(text).toContain('BLS プロバイダー講習ライセンス 10% ¥3,000');
    expect(text).toContain('10%対象 合計 ¥3,000');
    expect(text).toContain(`登録番号 ${receiptIssuer.registrationNumber}`);
    expect(receiptIssuer.registrationNumber).toMatch(/^T\d{13}$/);
    expect(text).toContain(receiptIssuer.name);
    expect(text).toContain(receiptIssuer.address);
    expect(text).toContain(`領収書番号 ${number}`);
    // The sale's 注文番号, as the receipt state gives it (docs/decisions/0030-order-numbers.md).
    expect(ordered.order_number).toMatch(/^LS-\d{4}-[0-9A-HJKMNP-TV-Z]{6}$/);
    expect(text).toContain(`注文番号 ${ordered.order_number}`);
    expect(text).toContain('お支払い方法 クレジットカード');
    const today = new Intl.DateTimeFormat('ja-JP', { timeZone: 'Asia/Tokyo', dateStyle: 'long' }).format(new Date());
    expect(text).toContain(`発行日 ${today}`);
    expect(text).toContain(`お支払日 ${today}`);
    expect(text).not.toContain('再発行');
    // Japanese text in an embedded subset of the font the npm package ships.
    const embedded = await fonts(res);
    expect(embedded).toMatch(/[A-Z]{6}\+NotoSansJP-Regular\s+CID TrueType\s+Identity-H\s+yes yes yes/);
    expect(await issueCount(saleId)).toBe(1);

    // The addressee is fixed from the first issue on.
    const late = await buyer.client.put(`/api/sales/${saleId}/receipt-addressee`, { addressee: 'name' });
    expect(late.status).toBe(409);
    expect((await late.json()).message).toBe('領収書は発行済みのため、宛名（〇〇市消防局 御中）は変更できません。');
    const after = await (await buyer.client.get(`/api/sales/${saleId}/receipt-addressee`)).json();
    expect(after).toMatchObject({ issued: true, issue_count: 1, addressee_kind: 'organisation', addressee: '〇〇市消防局 御中' });
  });

  it('a second and third issue say 再発行 with the count, keep the number and addressee, and are audited', async () => {
    const buyer = await member();
    const { saleId } = await buy(buyer, 'konbini');
    await buyer.client.put(`/api/sales/${saleId}/receipt-addressee`, { addressee: 'name' });
    const first = await pdfText(await buyer.client.get(`/api/sales/${saleId}/receipt`));
    expect(first).toContain(`${buyer.name} 様`);
    expect(first).toContain('お支払い方法 コンビニ払い');
    expect(first).not.toContain('再発行');

    const second = await buyer.client.get(`/api/sales/${saleId}/receipt`);
    expect(second.headers.get('x-receipt-issue-count')).toBe('2');
    const text2 = await pdfText(second);
    expect(text2).toContain('再発行（2回目）');
    expect(text2).toContain(`${buyer.name} 様`);
    expect(text2).toContain(`R-${String(saleId).padStart(8, '0')}`);
    expect(await issueCount(saleId)).toBe(2);

    // An administrator reads the 控え: marked, not counted, no 再発行 mark.
    const copy = await admin.get(`/api/sales/${saleId}/receipt`);
    expect(copy.headers.get('x-receipt-copy')).toBe('1');
    expect(copy.headers.get('x-receipt-issue-count')).toBe('2');
    const text3 = await pdfText(copy);
    expect(text3).toContain('控え');
    expect(text3).not.toContain('再発行（3回目）');
    expect(text3).toContain('会員への発行回数 2回');
    expect(await issueCount(saleId)).toBe(2);
    const text4 = await pdfText(await buyer.client.get(`/api/sales/${saleId}/receipt`));
    expect(text4).toContain('再発行（3回目）');
    expect(await issueCount(saleId)).toBe(3);

    const audit = await shop.runtime.deps.orm.em
      .fork()
      .execute<{ action: string; actor_email: string; after: { issue_count: number; addressee: string } }[]>(
        "select action, actor_email, after from audit_logs where target_type = 'sale' and target_id = ? order by created_at, id",
        [String(saleId)],
      );
    expect(audit.map((a) => [a.action, a.actor_email, a.after.issue_count])).toEqual([
      ['sale.receipt', buyer.email, 1],
      ['sale.receipt.reissue', buyer.email, 2],
      ['sale.receipt.copy', 'receipt-admin@example.jp', 2],
      ['sale.receipt.reissue', buyer.email, 3],
    ]);
    expect(audit[0]?.after.addressee).toBe(`${buyer.name} 様`);
  });

  it('five issues at once count five', async () => {
    const buyer = await member();
    const { saleId } = await buy(buyer);
    await buyer.client.put(`/api/sales/${saleId}/receipt-addressee`, { addressee: 'organisation' });
    const answers = await Promise.all(Array.from({ length: 5 }, () => buyer.client.get(`/api/sales/${saleId}/receipt`)));
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    expect(answers.map((r) => r.headers.get('x-receipt-issue-count')).sort()).toEqual(['1', '2', '3', '4', '5']);
    expect(await issueCount(saleId)).toBe(5);
  });

  it('limits issues to 30 an hour per member: the 31st answers a Japanese 429 with Retry-After, others unaffected', async () => {
    const buyer = await member();
    const { saleId } = await buy(buyer);
    await buyer.client.put(`/api/sales/${saleId}/receipt-addressee`, { addressee: 'name' });
    for (let i = 1; i <= 30; i++) expect((await buyer.client.get(`/api/sales/${saleId}/receipt`)).status, String(i)).toBe(200);
    const refused = await buyer.client.get(`/api/sales/${saleId}/receipt`);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await refused.json()).message).toBe('試行回数が多すぎます。しばらく時間をおいてから再度お試しください。');
    expect(await issueCount(saleId)).toBe(30);
    // The limit is the member's: an administrator still issues it on their behalf.
    expect((await admin.get(`/api/sales/${saleId}/receipt`)).status).toBe(200);
  });

  it('another member gets 403; an administrator reads a 控え only: never chooses, issues or fixes the addressee', async () => {
    const buyer = await member();
    const other = await member();
    const { saleId } = await buy(buyer);
    expect((await other.client.get(`/api/sales/${saleId}/receipt`)).status).toBe(403);
    expect((await other.client.get(`/api/sales/${saleId}/receipt-addressee`)).status).toBe(403);
    expect((await other.client.put(`/api/sales/${saleId}/receipt-addressee`, { addressee: 'name' })).status).toBe(403);
    expect(await issueCount(saleId)).toBeUndefined();

    // Not the administrator's to choose: the first issue fixes the addressee for good.
    const chosen = await admin.put(`/api/sales/${saleId}/receipt-addressee`, { addressee: 'organisation' });
    expect(chosen.status).toBe(403);
    expect((await chosen.json()).message).toContain('管理者は会員の領収書の宛名を選べません。');
    expect(await issueCount(saleId)).toBeUndefined();
    const state = await (await admin.get(`/api/sales/${saleId}/receipt-addressee`)).json();
    expect(state).toMatchObject({ copy_only: true, issued: false, issue_count: 0 });

    // Before the member chose: a 控え with no addressee, not issued, nothing recorded.
    const blank = await admin.get(`/api/sales/${saleId}/receipt`);
    expect(blank.headers.get('content-disposition')).toContain(
      `filename="receipt_R-${String(saleId).padStart(8, '0')}_copy.pdf"`,
    );
    const blankText = await pdfText(blank);
    expect(blankText).toContain('控え');
    expect(blankText).toContain('（宛名未選択）');
    expect(blankText).toContain('発行日 未発行');
    expect(blankText).toContain('会員への領収書は未発行です。');
    expect(blankText).toContain('領収書として使用することはできません');
    expect(await issueCount(saleId)).toBeUndefined();

    // The member chooses; the administrator's 控え shows the choice and still fixes nothing.
    expect((await buyer.client.put(`/api/sales/${saleId}/receipt-addressee`, { addressee: 'name' })).status).toBe(200);
    const chosenCopy = await pdfText(await admin.get(`/api/sales/${saleId}/receipt`));
    expect(chosenCopy).toContain(`${buyer.name} 様`);
    expect(chosenCopy).toContain('会員への領収書は未発行です。');
    expect(await issueCount(saleId)).toBe(0);
    const changed = await buyer.client.put(`/api/sales/${saleId}/receipt-addressee`, { addressee: 'organisation' });
    expect(changed.status).toBe(200);

    // The member's own first download is the first issue (no 再発行), whatever the administrator read.
    const first = await pdfText(await buyer.client.get(`/api/sales/${saleId}/receipt`));
    expect(first).toContain('〇〇市消防局 御中');
    expect(first).not.toContain('再発行');
    expect(first).not.toContain('控え');
    expect(await issueCount(saleId)).toBe(1);
    const issuedCopy = await pdfText(await admin.get(`/api/sales/${saleId}/receipt`));
    expect(issuedCopy).toContain('〇〇市消防局 御中');
    expect(issuedCopy).toContain('会員への発行回数 1回');
    expect(await issueCount(saleId)).toBe(1);
    // A member cannot ask for an uncounted copy.
    expect((await buyer.client.get(`/api/sales/${saleId}/receipt?copy=1`)).status).toBe(403);
    expect(await issueCount(saleId)).toBe(1);

    for (const path of ['/api/sales/99999999/receipt', '/api/sales/99999999999999999999/receipt', '/api/sales/0/receipt']) {
      const res = await buyer.client.get(path);
      expect(res.status, path).toBe(404);
    }
    const unknown = await admin.get('/api/sales/99999999/receipt-addressee');
    expect((await unknown.json()).message).toBe('領収書を発行するご購入が見つかりませんでした。');
    expect((await new TestClient(shop.app).get(`/api/sales/${saleId}/receipt`)).status).toBe(401);
  });

  it('refuses bad choices with 422, an organisation the member has none of, and a PUT without the CSRF token', async () => {
    const buyer = await member('');
    const { saleId } = await buy(buyer);
    const bad = await buyer.client.put(`/api/sales/${saleId}/receipt-addressee`, { addressee: '株式会社どこか' });
    expect(bad.status).toBe(422);
    expect((await bad.json()).errors).toEqual({
      addressee: ['宛名は「氏名」「所属」「宛名を入力する」のいずれかを選んでください。'],
    });
    const none = await buyer.client.put(`/api/sales/${saleId}/receipt-addressee`, { addressee: 'organisation' });
    expect(none.status).toBe(422);
    expect((await none.json()).errors).toEqual({ addressee: ['所属名が登録されていないため、所属を宛名にできません。'] });
    const state = await (await buyer.client.get(`/api/sales/${saleId}/receipt-addressee`)).json();
    expect(state.options).toEqual([{ value: 'name', label: `${buyer.name} 様` }]);
    for (const body of ['{"addressee":', '[]', '{"addressee":null}', '{"addressee":"name\\u0000"}', '{}']) {
      const res = await buyer.client.request('PUT', `/api/sales/${saleId}/receipt-addressee`, {
        body,
        headers: { 'content-type': 'application/json' },
      });
      expect([400, 422], body).toContain(res.status);
      expect((await res.json()).message, body).toMatch(/[ぁ-んァ-ヶ一-龠]/);
    }
    expect(await issueCount(saleId)).toBeUndefined();
    const forged = await buyer.client.request('PUT', `/api/sales/${saleId}/receipt-addressee`, {
      json: { addressee: 'name' },
      csrf: false,
    });
    expect(forged.status).toBe(419);
  });

  it('a refunded sale gets no receipt, with a Japanese reason', async () => {
    const buyer = await member();
    const { saleId, sessionId } = await buy(buyer);
    await buyer.client.put(`/api/sales/${saleId}/receipt-addressee`, { addressee: 'name' });
    shop.emulator.refund(String(shop.emulator.sessions.get(sessionId)?.payment_intent));
    await eventually(
      async () => {
        const rows = await shop.runtime.deps.orm.em.fork().execute('select refunded_at from sales where id = ?', [saleId]);
        return rows[0]?.refunded_at ?? null;
      },
      15_000,
      'the refund',
    );
    const res = await buyer.client.get(`/api/sales/${saleId}/receipt`);
    expect(res.status).toBe(409);
    expect((await res.json()).message).toBe('返金済みのご購入のため、領収書は発行できません。');
    expect((await buyer.client.get(`/api/sales/${saleId}/receipt-addressee`)).status).toBe(409);
  });
});

describe('a typed 宛名 (様 or 御中) and 但し書き', () => {
  it('prints the typed 宛名 with 御中 and the 但し書き, fixed from the first issue on', async () => {
    const buyer = await member();
    const { saleId } = await buy(buyer);
    const put = await buyer.client.put(`/api/sales/${saleId}/receipt-addressee`, {
      addressee: 'custom',
      addressee_text: '  〇〇病院 総務課  ',
      honorific: '御中',
      proviso: 'BLS 講習受講料として',
    });
    expect(put.status, await put.clone().text()).toBe(200);
    expect(await put.json()).toMatchObject({
      receipt: {
        addressee_kind: 'custom',
        addressee: '〇〇病院 総務課 御中',
        addressee_text: '〇〇病院 総務課',
        honorific: '御中',
        proviso: 'BLS 講習受講料として',
        issued: false,
      },
      message: '領収書の宛名を「〇〇病院 総務課 御中」にしました。',
    });
    const text = await pdfText(await buyer.client.get(`/api/sales/${saleId}/receipt`));
    expect(text).toContain('〇〇病院 総務課 御中');
    expect(text).toContain('但し BLS 講習受講料として');
    expect(text).not.toContain(buyer.name);
    expect(text).not.toContain('ライセンス代として');

    const late = await buyer.client.put(`/api/sales/${saleId}/receipt-addressee`, {
      addressee: 'custom',
      addressee_text: '別の病院',
      honorific: '御中',
    });
    expect(late.status).toBe(409);
    const again = await pdfText(await buyer.client.get(`/api/sales/${saleId}/receipt`));
    expect(again).toContain('〇〇病院 総務課 御中');
    expect(again).toContain('但し BLS 講習受講料として');
    expect(again).toContain('再発行（2回目）');
    const state = await (await buyer.client.get(`/api/sales/${saleId}/receipt-addressee`)).json();
    expect(state).toMatchObject({
      issued: true,
      issue_count: 2,
      addressee: '〇〇病院 総務課 御中',
      proviso: 'BLS 講習受講料として',
    });
  });

  it('prints a typed person’s name with 様; the 但し書き defaults to 「ライセンス代として」 for every kind', async () => {
    const buyer = await member();
    const { saleId } = await buy(buyer);
    const before = await (await buyer.client.get(`/api/sales/${saleId}/receipt-addressee`)).json();
    expect(before).toMatchObject({
      proviso: 'ライセンス代として',
      default_proviso: 'ライセンス代として',
      honorifics: ['様', '御中'],
    });
    expect(
      (
        await buyer.client.put(`/api/sales/${saleId}/receipt-addressee`, {
          addressee: 'custom',
          addressee_text: '山田 太郎',
          honorific: '様',
        })
      ).status,
    ).toBe(200);
    const text = await pdfText(await buyer.client.get(`/api/sales/${saleId}/receipt`));
    expect(text).toContain('山田 太郎 様');
    expect(text).toContain('但し ライセンス代として');

    // The buyer's own details keep working, with a typed 但し書き.
    const other = await member();
    const second = await buy(other);
    expect(
      (
        await other.client.put(`/api/sales/${second.saleId}/receipt-addressee`, {
          addressee: 'organisation',
          proviso: '研修費として',
        })
      ).status,
    ).toBe(200);
    const text2 = await pdfText(await other.client.get(`/api/sales/${second.saleId}/receipt`));
    expect(text2).toContain('〇〇市消防局 御中');
    expect(text2).toContain('但し 研修費として');
  });

  it('takes SPEC §10’s shape: a 宛名 typed with its honorific, or without one (御中)', async () => {
    for (const [body, printed] of [
      [{ addressee: 'custom', addressee_text: '〇〇病院 総務課 御中', proviso: '研修費として' }, '〇〇病院 総務課 御中'],
      [{ addressee: 'custom', addressee_text: '〇〇病院 総務課', proviso: '研修費として' }, '〇〇病院 総務課 御中'],
      [{ addressee: 'custom', addressee_text: '山田 太郎様' }, '山田 太郎 様'],
    ] as const) {
      const buyer = await member();
      const { saleId } = await buy(buyer);
      const res = await buyer.client.put(`/api/sales/${saleId}/receipt-addressee`, body);
      expect(res.status, JSON.stringify(body)).toBe(200);
      const text = await pdfText(await buyer.client.get(`/api/sales/${saleId}/receipt`));
      expect(text, JSON.stringify(body)).toContain(printed);
      expect(text).not.toContain('御中 御中');
      expect(text).toContain(`但し ${'proviso' in body ? body.proviso : 'ライセンス代として'}`);
    }
  });

  it('refuses a missing, too long or unprintable 宛名, a wrong honorific and a bad 但し書き with 422s', async () => {
    const buyer = await member();
    const { saleId } = await buy(buyer);
    const cases: [Record<string, unknown>, Record<string, string[]>][] = [
      [{ addressee: 'custom', honorific: '御中' }, { addressee_text: ['宛名を入力してください。'] }],
      [{ addressee: 'custom', addressee_text: '   ', honorific: '御中' }, { addressee_text: ['宛名を入力してください。'] }],
      [
        { addressee: 'custom', addressee_text: 'あ'.repeat(61), honorific: '様' },
        { addressee_text: ['宛名は60文字以内で入力してください。'] },
      ],
      [
        { addressee: 'custom', addressee_text: '〇〇病院\n総務課', honorific: '御中' },
        { addressee_text: ['宛名の5文字目に使用できない文字（U+000A）が含まれています。'] },
      ],
      [
        { addressee: 'custom', addressee_text: '〇〇病院\u202e課務総', honorific: '御中' },
        { addressee_text: ['宛名の5文字目に使用できない文字（U+202E）が含まれています。'] },
      ],
      [
        { addressee: 'custom', addressee_text: '〇〇病院 総務課 様', honorific: '御中' },
        { addressee_text: ['宛名の末尾の敬称と、選んだ敬称が異なります。宛名は敬称を付けずに入力してください。'] },
      ],
      [
        { addressee: 'custom', addressee_text: '〇〇病院 総務課 殿' },
        { addressee_text: ['宛名に「殿」は付けずに入力し、敬称は「様」か「御中」から選んでください。'] },
      ],
      [
        { addressee: 'custom', addressee_text: '〇〇病院', honorific: '殿' },
        { honorific: ['敬称は「様」か「御中」から選んでください。'] },
      ],
      [{ addressee: 'name', proviso: '' }, { proviso: ['但し書きを入力してください。'] }],
      [{ addressee: 'name', proviso: 'い'.repeat(41) }, { proviso: ['但し書きは40文字以内で入力してください。'] }],
      [{ addressee: 'name', proviso: 42 }, { proviso: ['但し書きは文字列で入力してください。'] }],
    ];
    for (const [body, errors] of cases) {
      const res = await buyer.client.put(`/api/sales/${saleId}/receipt-addressee`, body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect((await res.json()).errors, JSON.stringify(body)).toEqual(errors);
    }
    expect(await issueCount(saleId)).toBeUndefined();
    // 60 characters and 40 characters are fine.
    const ok = await buyer.client.put(`/api/sales/${saleId}/receipt-addressee`, {
      addressee: 'custom',
      addressee_text: 'あ'.repeat(60),
      honorific: '様',
      proviso: 'い'.repeat(40),
    });
    expect(ok.status).toBe(200);
  });

  it('a new choice between rendering and recording is never issued under the old addressee', async () => {
    const buyer = await member();
    const { saleId } = await buy(buyer);
    await buyer.client.put(`/api/sales/${saleId}/receipt-addressee`, {
      addressee: 'custom',
      addressee_text: '甲病院',
      honorific: '御中',
    });
    // Issues and re-choices at once: every issue prints what was recorded as its addressee.
    const [a, b, c] = await Promise.all([
      buyer.client.get(`/api/sales/${saleId}/receipt`),
      buyer.client.put(`/api/sales/${saleId}/receipt-addressee`, {
        addressee: 'custom',
        addressee_text: '乙病院',
        honorific: '御中',
      }),
      buyer.client.get(`/api/sales/${saleId}/receipt`),
    ]);
    const recorded = (
      await shop.runtime.deps.orm.em
        .fork()
        .execute<{ addressee: string }[]>('select addressee from sale_receipts where sale_id = ?', [saleId])
    )[0]?.addressee;
    expect(['甲病院 御中', '乙病院 御中']).toContain(recorded);
    for (const res of [a, c]) expect(await pdfText(res)).toContain(recorded as string);
    expect([200, 409]).toContain(b.status);
    expect(await issueCount(saleId)).toBe(2);
  });
});

describe('konbini receipts', () => {
  it('say that the store’s 払込票控え is the proof of payment and that the shop’s receipt is issued on request', async () => {
    const buyer = await member();
    const { saleId } = await buy(buyer, 'konbini');
    const state = await (await buyer.client.get(`/api/sales/${saleId}/receipt-addressee`)).json();
    expect(state).toMatchObject({ payment_method: 'konbini', konbini: true });
    await buyer.client.put(`/api/sales/${saleId}/receipt-addressee`, { addressee: 'name' });
    const text = await pdfText(await buyer.client.get(`/api/sales/${saleId}/receipt`));
    expect(text).toContain('お支払い方法 コンビニ払い');
    expect(text).toContain('払込票控え（受領証）');
    expect(text).toContain('この領収書は、お客様のご依頼により当店が発行したものです。');

    const card = await member();
    const paid = await buy(card);
    expect(await (await card.client.get(`/api/sales/${paid.saleId}/receipt-addressee`)).json()).toMatchObject({
      payment_method: 'card',
      konbini: false,
    });
    await card.client.put(`/api/sales/${paid.saleId}/receipt-addressee`, { addressee: 'name' });
    expect(await pdfText(await card.client.get(`/api/sales/${paid.saleId}/receipt`))).not.toContain('払込票控え');
  });
});
