import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrPromoteAdmin } from '../../src/modules/accounts/index.ts';
import { createLicense } from '../../src/modules/licenses/index.ts';
import { aMember } from '../support/factories.ts';
import { TestClient } from '../support/http-client.ts';
import { buyThroughStripe, type ShopWithStripe, startShopWithStripe } from '../support/stripe.ts';

// Issue 30 item 6: printable text only in 宛名, 但し書き, names and every free text printed on a PDF or a CSV.
let shop: ShopWithStripe;
let licenseId: number;
let admin: TestClient;
let seq = 0;

beforeAll(async () => {
  shop = await startShopWithStripe();
  licenseId = (
    await createLicense(
      shop.runtime.deps.orm,
      shop.runtime.deps.files,
      { id: 'test', email: 'test' },
      { name: 'ICLS 講習ライセンス', description: '', price: 3000 },
      [],
    )
  ).id;
  await createOrPromoteAdmin(shop.runtime.deps.orm, { email: 'printable-admin@example.jp', password: 'admin-pass-123' });
  admin = new TestClient(shop.app, '10.31.9.9');
  expect((await admin.login('printable-admin@example.jp', 'admin-pass-123')).status).toBe(200);
}, 60_000);
afterAll(async () => shop?.stop());

async function member() {
  const email = `printable${++seq}-${Date.now()}@example.jp`;
  const user = await aMember(shop.runtime.deps.orm, {
    email,
    password: 'buyer-pass-123',
    lastName: '印字',
    firstName: `花子${seq}`,
    emailVerified: true,
    affiliation: 4,
    affiliationName: '〇〇市消防局',
  });
  const client = new TestClient(shop.app, `10.31.0.${seq}`);
  expect((await client.login(email, 'buyer-pass-123')).status).toBe(200);
  return { client, id: user.id, email };
}

const buy = async (buyer: Awaited<ReturnType<typeof member>>) => (await buyThroughStripe(shop, buyer.client, licenseId)).saleId;

/** Each class the rule refuses, placed third in 「山田?太郎」-like text: [what, character]. */
const REFUSED: [string, string][] = [
  ['zero width space', '\u200b'],
  ['zero width joiner', '\u200d'],
  ['left-to-right mark', '\u200e'],
  ['right-to-left override', '\u202e'],
  ['first strong isolate', '\u2068'],
  ['word joiner', '\u2060'],
  ['byte order mark', '\ufeff'],
  ['soft hyphen', '\u00ad'],
  ['variation selector', '\ufe0f'],
  ['Hangul filler', '\u3164'],
  ['Hangul choseong filler', '\u115f'],
  ['Hangul jungseong filler', '\u1160'],
  ['halfwidth Hangul filler', '\uffa0'],
  ['braille blank', '\u2800'],
  ['tag letter A', '\u{e0041}'],
  ['cancel tag', '\u{e007f}'],
  ['private use', '\ue000'],
  ['supplementary private use', '\u{f0000}'],
  ['unassigned', '\u0378'],
  ['C1 control', '\u0085'],
  ['line feed', '\n'],
  ['tab', '\t'],
  ['line separator', '\u2028'],
  ['emoji the font cannot draw', '😀'],
  ['flag letter', '\u{1f1ef}'],
  ['hieroglyph the font cannot draw', '\u{13000}'],
];
const hex = (character: string) => `U+${(character.codePointAt(0) as number).toString(16).toUpperCase().padStart(4, '0')}`;

/** Ordinary Japanese and what Japanese forms are typed with: accepted everywhere. */
const ORDINARY = [
  '髙橋',
  'わたなべ',
  '﨑山①',
  'ＡＢＣ商事',
  'ヨーコ〜',
  '～ｶﾅ',
  '𠮟',
  '株式会社㈱',
  'か\u3099',
  'é',
  'e\u0301\u0300',
];

describe('receipt 宛名 and 但し書き', () => {
  it('refuses each class of character with a 422 naming the field and the position, and records nothing', async () => {
    const buyer = await member();
    const saleId = await buy(buyer);
    for (const [what, character] of REFUSED) {
      const text = `〇〇${character}病院`;
      const res = await buyer.client.put(`/api/sales/${saleId}/receipt-addressee`, {
        addressee: 'custom',
        addressee_text: text,
        honorific: '御中',
        proviso: `研修${character}費として`,
      });
      expect(res.status, what).toBe(422);
      expect((await res.json()).errors, what).toEqual({
        addressee_text: [`宛名の3文字目に使用できない文字（${hex(character)}）が含まれています。`],
        proviso: [`但し書きの3文字目に使用できない文字（${hex(character)}）が含まれています。`],
      });
    }
    const state = await (await buyer.client.get(`/api/sales/${saleId}/receipt-addressee`)).json();
    expect(state).toMatchObject({ addressee_kind: null, addressee_text: null, proviso: 'ライセンス代として' });
  });

  it('allows two combining marks on one character, not three (nor 59)', async () => {
    const buyer = await member();
    const saleId = await buy(buyer);
    const put = (addressee_text: string) =>
      buyer.client.put(`/api/sales/${saleId}/receipt-addressee`, { addressee: 'custom', addressee_text, honorific: '様' });
    for (const [text, position, mark] of [
      ['Re\u0301\u0301\u0301ne', 5, '\u0301'],
      ['か\u3099\u309a\u3099', 4, '\u3099'],
      [`Zalgo${'\u0301'.repeat(59)}`, 8, '\u0301'],
    ] as const) {
      const res = await put(text);
      expect(res.status, text).toBe(422);
      expect((await res.json()).errors.addressee_text).toEqual([
        `宛名の${position}文字目に重ねた記号（${hex(mark)}）が多すぎます。濁点やアクセントなどの記号は1文字に2つまでです。`,
      ]);
    }
    const ok = await put('Rene\u0301\u0300 か\u3099');
    expect(ok.status, await ok.clone().text()).toBe(200);
  });

  it('accepts ordinary Japanese: 漢字, かな, 髙, ①, full-width letters, ー, 〜', async () => {
    const buyer = await member();
    const saleId = await buy(buyer);
    const res = await buyer.client.put(`/api/sales/${saleId}/receipt-addressee`, {
      addressee: 'custom',
      addressee_text: `${ORDINARY.join('')} 様`,
      proviso: '研修費（①〜③回）として',
    });
    expect(res.status, await res.clone().text()).toBe(200);
    expect((await res.json()).receipt.addressee).toBe(`${ORDINARY.join('')} 様`);
  });
});

describe('names', () => {
  const registration = (patch: Record<string, unknown>) => ({
    email: `printable-new-${++seq}@example.jp`,
    email_confirmation: `printable-new-${seq}@example.jp`,
    last_name: '山田',
    first_name: '太郎',
    last_name_kana: 'ヤマダ',
    first_name_kana: 'タロウ',
    affiliations: 6,
    affiliation_name: '〇〇消防',
    affiliation_other: '研究機関',
    distribution: true,
    password: 'silver-canoe-4821',
    password_confirmation: 'silver-canoe-4821',
    ...patch,
  });
  const labels = {
    last_name: '姓',
    first_name: '名',
    last_name_kana: 'セイ（フリガナ）',
    first_name_kana: 'メイ（フリガナ）',
    affiliation_name: '所属名',
    affiliation_other: 'その他の所属',
  };

  it('refuse each class in every name field at registration, naming the field and the position', async () => {
    const guest = new TestClient(shop.app, '10.31.5.1');
    for (const [what, character] of REFUSED) {
      const body = registration(Object.fromEntries(Object.keys(labels).map((field) => [field, `ヤマ${character}ダ`])));
      const res = await guest.post('/api/users/registration/validate', body);
      expect(res.status, what).toBe(422);
      const { errors } = await res.json();
      for (const [field, label] of Object.entries(labels)) {
        expect(errors[field], `${what} ${field}`).toEqual([
          `${label}の3文字目に使用できない文字（${hex(character)}）が含まれています。`,
        ]);
      }
    }
    const ok = await guest.post(
      '/api/users/registration/validate',
      registration({ last_name: '髙橋', first_name: '①ＡＢＣ〜ー' }),
    );
    expect(ok.status, await ok.clone().text()).toBe(200);
  });

  it('refuse them on the member’s own edit and an administrator’s edit', async () => {
    const m = await member();
    const edit = {
      email: m.email,
      email_confirmation: m.email,
      last_name: '印字',
      first_name: '花\u200b子',
      affiliations: 4,
      affiliation_name: '〇〇市消防局',
    };
    for (const client of [m.client, admin]) {
      const res = await client.put(`/api/users/${m.id}`, edit);
      expect(res.status).toBe(422);
      expect((await res.json()).errors).toEqual({ first_name: ['名の2文字目に使用できない文字（U+200B）が含まれています。'] });
    }
    const user = (await (await admin.get(`/api/users/${m.id}`)).json()).user;
    expect(user.first_name).not.toContain('\u200b');
    expect((await m.client.put(`/api/users/${m.id}`, { ...edit, first_name: '髙子' })).status).toBe(200);
  });
});

describe('other free text printed on a PDF or written to a CSV', () => {
  it('licence names and descriptions (the receipt, the sales and audit CSVs): descriptions keep their line breaks', async () => {
    const form = (fields: Record<string, string>) => {
      const data = new FormData();
      for (const [key, value] of Object.entries({ price: '3000', ...fields })) data.append(key, value);
      return data;
    };
    const validate = (fields: Record<string, string>) =>
      admin.request('POST', '/api/licenses/create/validate', { body: form(fields) });
    const bad = await validate({ name: 'BLS\u2800講習', description: '一次救命処置😀の講習\nです' });
    expect(bad.status).toBe(422);
    expect((await bad.json()).errors).toEqual({
      name: ['ライセンス名の4文字目に使用できない文字（U+2800）が含まれています。'],
      description: ['説明の7文字目に使用できない文字（U+1F600）が含まれています。'],
    });
    const good = await validate({ name: 'ＢＬＳ講習①〜', description: '一次救命処置の講習です。\r\n髙度な内容を含みます。' });
    expect(good.status, await good.clone().text()).toBe(200);
  });

  it('refund and 差し戻し reasons and the payments notes (the audit CSV)', async () => {
    const uuid = '00000000-0000-4000-8000-000000000000';
    for (const [path, body, field, label] of [
      ['/api/sales/999999999/refund', { reason: '二重\u200e購入' }, 'reason', '返金の理由'],
      ['/api/sales/revert', { saleIds: [999999999], reason: '誤り\u{e0041}' }, 'reason', '差し戻しの理由'],
      [`/api/payments/findings/${uuid}/acknowledge`, { note: '確認\u3164済み' }, 'note', 'メモ'],
      [`/api/payments/reconciliations/${uuid}/acknowledge`, { note: '\ue000' }, 'note', 'メモ'],
    ] as const) {
      const res = await admin.post(path, body);
      expect(res.status, path).toBe(422);
      const text = Object.values(body).find((value) => typeof value === 'string') as string;
      const position = [...text].findIndex((character) => /[\u200e\u{e0041}\u3164\ue000]/u.test(character)) + 1;
      const character = [...text][position - 1] as string;
      expect((await res.json()).errors[field], path).toEqual([
        `${label}の${position}文字目に使用できない文字（${hex(character)}）が含まれています。`,
      ]);
    }
  });
});
