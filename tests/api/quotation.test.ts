import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aLicense, aMember } from '../support/factories.ts';
import { TestClient } from '../support/http-client.ts';
import { pdfText } from '../support/pdf.ts';
import { startTestRuntime, type TestRuntime } from '../support/runtime.ts';

let t: TestRuntime;
let licenseId: number;
let seq = 0;

beforeAll(async () => {
  t = await startTestRuntime();
  licenseId = await aLicense(t.runtime.deps.orm, { name: 'ACLS プロバイダー講習ライセンス', price: 33_000 });
}, 60_000);
afterAll(async () => {
  await t?.stop();
});

async function member() {
  const { id, email, password } = await aMember(t.runtime.deps.orm);
  const client = new TestClient(t.app, `10.47.0.${++seq}`);
  expect((await client.login(email, password)).status).toBe(200);
  return { client, id };
}

const quotation = (client: TestClient, query: Record<string, string>, id = licenseId) =>
  client.get(`/api/licenses/${id}/quotation?${new URLSearchParams(query)}`);

/** 2026年12月28日 for an instant, in Japan time. */
const japanDate = (at: Date) =>
  new Intl.DateTimeFormat('ja-JP', { timeZone: 'Asia/Tokyo', year: 'numeric', month: 'long', day: 'numeric' }).format(at);

describe('GET /api/licenses/{id}/quotation', () => {
  it('gives a 御見積書 with its number, dates, the item, the tax and the seller, and records it', async () => {
    const { client, id } = await member();
    const before = Date.now();
    const res = await quotation(client, { addressee: '〇〇市消防局 総務課', honorific: '御中' });
    const number = res.headers.get('x-quotation-number') as string;
    expect(number).toMatch(/^QT-\d{4}-[0-9A-HJKMNP-TV-Z]{6}$/);
    const text = await pdfText(res);
    expect(text).toContain('御 見 積 書');
    expect(text).toContain('〇〇市消防局 総務課 御中');
    expect(text).toContain(`見積番号 ${number}`);
    expect(text).toContain(`発行日 ${japanDate(new Date(before))}`);
    expect(text).toContain(`有効期限 ${japanDate(new Date(before + 30 * 86_400_000))}`);
    expect(text).toContain('ACLS プロバイダー講習ライセンス 1 ¥33,000 ¥33,000');
    expect(text).toContain('¥33,000-');
    expect(text).toContain('うち消費税（10%）¥3,000');
    expect(text).toContain('登録番号 T0000000000000');
    expect(text).toContain('〒000-0000 東京都〇〇区〇〇 0-0-0（仮）');
    const rows = await t.runtime.deps.orm.em
      .fork()
      .execute('select user_id, license_id, license_name, amount, issued_at from quotations where quotation_number = ?', [
        number,
      ]);
    expect(rows).toEqual([
      {
        user_id: id,
        license_id: licenseId,
        license_name: 'ACLS プロバイダー講習ライセンス',
        amount: 33_000,
        issued_at: expect.any(String),
      },
    ]);
  });

  it('様 for a person', async () => {
    const { client } = await member();
    expect(await pdfText(await quotation(client, { addressee: '山田 花子', honorific: '様' }))).toContain('山田 花子 様');
  });

  it('422 in Japanese for an empty, too long or unprintable 宛名, or a wrong honorific; 404 for no licence', async () => {
    const { client } = await member();
    const cases: [Record<string, string>, string, string][] = [
      [{ addressee: '', honorific: '様' }, 'addressee', '宛名を入力してください。'],
      [{ honorific: '様' }, 'addressee', '宛名を入力してください。'],
      [{ addressee: 'あ'.repeat(61), honorific: '様' }, 'addressee', '宛名は60文字以内で入力してください。'],
      [{ addressee: '病院\u0007', honorific: '御中' }, 'addressee', '使用できない文字'],
      [{ addressee: '病院', honorific: '殿' }, 'honorific', '敬称は「様」か「御中」から選んでください。'],
    ];
    for (const [query, field, message] of cases) {
      const res = await quotation(client, query);
      expect(res.status, JSON.stringify(query)).toBe(422);
      const body = await res.json();
      expect(body.message).toBe('不正な値が入力されました。');
      expect(body.errors[field][0]).toContain(message);
    }
    expect((await quotation(client, { addressee: '病院', honorific: '御中' }, 999_999)).status).toBe(404);
    expect((await new TestClient(t.app).get(`/api/licenses/${licenseId}/quotation?addressee=a&honorific=様`)).status).toBe(401);
  });

  it('10 per member per hour: the 11th answers 429 with Retry-After', async () => {
    const { client } = await member();
    for (let i = 0; i < 10; i++) expect((await quotation(client, { addressee: `病院${i}`, honorific: '御中' })).status).toBe(200);
    const refused = await quotation(client, { addressee: '病院', honorific: '御中' });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await refused.json()).message).toBeTruthy();
    const other = await member();
    expect((await quotation(other.client, { addressee: '病院', honorific: '御中' })).status).toBe(200);
  });
});
