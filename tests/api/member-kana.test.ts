import iconv from 'iconv-lite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIMITS } from '../../src/config/limits.ts';
import { FOLD_FROM, NAME_VARIANTS, searchKey } from '../../src/db/like.ts';
import { createOrPromoteAdmin } from '../../src/modules/accounts/index.ts';
import { aMember, cycle, manyMembers } from '../support/factories.ts';
import { TestClient } from '../support/http-client.ts';
import { startTestRuntime, type TestRuntime } from '../support/runtime.ts';

let t: TestRuntime;
let admin: TestClient;
/** A second administrator: `admin` spends its CSV limit in the rate-limit test. */
let other: TestClient;
let adminId: string;
let ipSeq = 0;
const client = () => new TestClient(t.app, `10.61.${Math.floor(++ipSeq / 200)}.${ipSeq % 200}`);
const unique = (name: string) => `${name}-${Date.now()}-${Math.random().toString(36).slice(2, 7)}@example.jp`;

interface Person {
  email: string;
  lastName: string;
  firstName: string;
  lastNameKana?: string | null;
  firstNameKana?: string | null;
  affiliationName?: string;
}

const people: Person[] = [
  { email: 'takahashi.hd@example.jp', lastName: '髙橋', firstName: '一郎', lastNameKana: 'タカハシ', firstNameKana: 'イチロウ' },
  { email: 'takahashi@example.jp', lastName: '高橋', firstName: '次郎', lastNameKana: 'タカハシ', firstNameKana: 'ジロウ' },
  { email: 'yamazaki@example.jp', lastName: '山﨑', firstName: '花子', lastNameKana: 'ヤマザキ', firstNameKana: 'ハナコ' },
  { email: 'gakuto@example.jp', lastName: '岳', firstName: '人', lastNameKana: 'ガク', firstNameKana: 'ト' },
  { email: 'kawa@example.jp', lastName: '川', firstName: '和', lastNameKana: 'カワ', firstNameKana: 'カズ' },
  { email: 'yamada@example.jp', lastName: '山田', firstName: '太郎', lastNameKana: 'ヤマダ', firstNameKana: 'タロウ' },
  { email: 'yoshida@example.jp', lastName: '𠮷田', firstName: '実', lastNameKana: 'ヨシダ', firstNameKana: 'ミノル' },
  { email: 'ito@example.jp', lastName: '伊藤', firstName: '誠', lastNameKana: 'イトウ', firstNameKana: 'マコト' },
  { email: 'saito@example.jp', lastName: '齋藤', firstName: '健', affiliationName: '=HYPERLINK("http://evil.example")' },
  { email: 'nokana@example.jp', lastName: '阿部', firstName: '一' },
];
const ids: Record<string, string> = {};

beforeAll(async () => {
  t = await startTestRuntime();
  adminId = (await createOrPromoteAdmin(t.runtime.deps.orm, { email: 'kana-admin@example.jp', password: 'admin-pass-123' })).user
    .id;
  for (const p of people) {
    const user = await aMember(t.runtime.deps.orm, {
      email: p.email,
      password: 'member-pass-123',
      lastName: p.lastName,
      firstName: p.firstName,
      lastNameKana: p.lastNameKana ?? null,
      firstNameKana: p.firstNameKana ?? null,
      emailVerified: true,
      affiliation: 4,
      affiliationName: p.affiliationName ?? '〇〇消防局',
    });
    ids[p.email] = user.id;
  }
  admin = client();
  await admin.login('kana-admin@example.jp', 'admin-pass-123');
  await createOrPromoteAdmin(t.runtime.deps.orm, { email: 'kana-admin2@example.jp', password: 'admin-pass-123' });
  other = client();
  await other.login('kana-admin2@example.jp', 'admin-pass-123');
});
afterAll(async () => {
  await t?.stop();
});

const registration = (overrides: Record<string, unknown> = {}) => {
  const email = unique('kana');
  return {
    email,
    email_confirmation: email,
    last_name: '山田',
    first_name: '太郎',
    affiliations: 4,
    affiliation_name: '〇〇市消防局',
    distribution: true,
    password: 'password-123',
    password_confirmation: 'password-123',
    ...overrides,
  };
};

const emailsOf = async (query: string) => {
  const res = await admin.get(`/api/users${query}`);
  expect(res.status).toBe(200);
  return ((await res.json()).users as { email: string }[]).map((u) => u.email);
};

describe('フリガナ in registration and profile', () => {
  it('normalises hiragana and half-width katakana to 全角カタカナ', async () => {
    const res = await client().post(
      '/api/users/registration/validate',
      registration({ last_name_kana: ' やまだ ', first_name_kana: 'ﾀﾛｳ' }),
    );
    expect(res.status).toBe(200);
    expect((await res.json()).user).toMatchObject({ last_name_kana: 'ヤマダ', first_name_kana: 'タロウ' });
    const dashes = await client().post(
      '/api/users/registration/validate',
      registration({ last_name_kana: 'ｽﾐｽ－ﾌﾞﾗｳﾝ', first_name_kana: 'じょん　ぽーる' }),
    );
    expect((await dashes.json()).user).toMatchObject({ last_name_kana: 'スミスーブラウン', first_name_kana: 'ジョン ポール' });
  });

  it('refuses what is not katakana, or longer than 50, in Japanese', async () => {
    const res = await client().post(
      '/api/users/registration/validate',
      registration({ last_name_kana: '山田', first_name_kana: 'タ'.repeat(51) }),
    );
    expect(res.status).toBe(422);
    const body = await res.json();
    expect(body.message).toBe('不正な値が入力されました。');
    expect(body.errors.last_name_kana).toEqual(['セイ（フリガナ）は全角カタカナで入力してください。']);
    expect(body.errors.first_name_kana).toEqual(['メイ（フリガナ）は50文字以内で入力してください。']);
    const latin = await client().post('/api/users/registration/validate', registration({ last_name_kana: 'Yamada' }));
    expect((await latin.json()).errors.last_name_kana).toEqual(['セイ（フリガナ）は全角カタカナで入力してください。']);
    const wrongType = await client().post('/api/users/registration/validate', registration({ last_name_kana: 12 }));
    expect(wrongType.status).toBe(422);
  });

  it('stays optional for clients that do not send it', async () => {
    const res = await client().post('/api/users/registration/validate', registration());
    expect(res.status).toBe(200);
    expect((await res.json()).user).toMatchObject({ last_name_kana: null, first_name_kana: null });
  });

  it('is saved at registration, changed by a profile edit, kept when an edit leaves it out', async () => {
    const body = registration({ last_name_kana: 'きむら', first_name_kana: 'ｹﾝ' });
    expect((await client().post('/api/users/registration', body)).status).toBe(200);
    const [row] = await t.runtime.deps.orm.em
      .fork()
      .execute<{ id: string; last_name_kana: string; first_name_kana: string }[]>(
        'select id, last_name_kana, first_name_kana from users where email = ?',
        [body.email],
      );
    expect(row).toMatchObject({ last_name_kana: 'キムラ', first_name_kana: 'ケン' });
    await t.runtime.deps.orm.em.fork().execute('update users set email_verified = true where id = ?', [row?.id]);
    const member = client();
    expect((await member.login(body.email as string, 'password-123')).status).toBe(200);
    const profile = {
      email: body.email,
      email_confirmation: body.email,
      last_name: '木村',
      first_name: '健',
      affiliations: 4,
      affiliation_name: '〇〇市消防局',
    };
    const edited = await member.put(`/api/users/${row?.id}`, { ...profile, last_name_kana: 'キムラ', first_name_kana: 'たける' });
    expect(edited.status).toBe(200);
    expect((await edited.json()).user).toMatchObject({ last_name_kana: 'キムラ', first_name_kana: 'タケル' });
    // A seed client's edit (no フリガナ fields) keeps it; an explicit null clears it.
    const kept = await member.put(`/api/users/${row?.id}`, profile);
    expect((await kept.json()).user).toMatchObject({ last_name_kana: 'キムラ', first_name_kana: 'タケル' });
    const bad = await member.put(`/api/users/${row?.id}`, { ...profile, first_name_kana: 'Takeru' });
    expect(bad.status).toBe(422);
    const cleared = await member.put(`/api/users/${row?.id}`, { ...profile, last_name_kana: null, first_name_kana: '' });
    expect((await cleared.json()).user).toMatchObject({ last_name_kana: null, first_name_kana: null });
  });

  it('is shown to administrators and audited when they change it', async () => {
    const id = ids['ito@example.jp'] as string;
    const shown = await (await admin.get(`/api/users/${id}`)).json();
    expect(shown.user).toMatchObject({ last_name: '伊藤', last_name_kana: 'イトウ', first_name_kana: 'マコト' });
    const res = await admin.put(`/api/users/${id}`, {
      email: 'ito@example.jp',
      email_confirmation: 'ito@example.jp',
      last_name: '伊藤',
      first_name: '誠',
      last_name_kana: 'イトウ',
      first_name_kana: 'まこと',
      affiliations: 4,
      affiliation_name: '〇〇消防局',
    });
    expect(res.status).toBe(200);
    const [entry] = await t.runtime.deps.orm.em
      .fork()
      .execute<{ before: Record<string, unknown>; after: Record<string, unknown> }[]>(
        "select before, after from audit_logs where target_id = ? and action = 'user.update'",
        [id],
      );
    expect(entry?.after).toMatchObject({ last_name_kana: 'イトウ', first_name_kana: 'マコト' });
  });
});

describe('GET /api/users?sort=kana', () => {
  it('orders by 五十音 (清音 before 濁音, then the name) with members without フリガナ last', async () => {
    const order = await emailsOf('?sort=kana&per_page=100');
    const listed = order.filter((email) => people.some((p) => p.email === email));
    expect(listed).toEqual([
      'ito@example.jp', // イトウ
      'gakuto@example.jp', // ガク reads カク first: before カワ
      'kawa@example.jp', // カワ
      'takahashi.hd@example.jp', // タカハシ イチロウ
      'takahashi@example.jp', // タカハシ ジロウ (シロウ)
      'yamazaki@example.jp', // ヤマサキ
      'yamada@example.jp', // ヤマタ
      'yoshida@example.jp', // ヨシタ
      'nokana@example.jp', // no フリガナ: last, by name
      'saito@example.jp',
    ]);
  });

  it('pages through that order', async () => {
    const all = await emailsOf('?sort=kana&per_page=100');
    const second = await emailsOf('?sort=kana&per_page=3&page=2');
    expect(second).toEqual(all.slice(3, 6));
    expect((await admin.get('/api/users?sort=-kana')).status).toBe(422);
  });
});

describe('name search', () => {
  it('finds フリガナ typed in katakana, hiragana or half-width', async () => {
    expect(await emailsOf(`?name=${encodeURIComponent('ヤマダ')}`)).toEqual(['yamada@example.jp']);
    expect(await emailsOf(`?name=${encodeURIComponent('やまだ たろう')}`)).toEqual(['yamada@example.jp']);
    expect(await emailsOf(`?name=${encodeURIComponent('ﾔﾏｻﾞｷ')}`)).toEqual(['yamazaki@example.jp']);
    expect(await emailsOf(`?name=${encodeURIComponent('ハナコ')}`)).toEqual(['yamazaki@example.jp']);
  });

  it('folds 異体字: 高橋 finds 髙橋 and 髙橋 finds 高橋; 山崎 finds 山﨑; 斎藤 finds 齋藤', async () => {
    const both = ['takahashi.hd@example.jp', 'takahashi@example.jp'];
    expect((await emailsOf(`?name=${encodeURIComponent('高橋')}`)).sort()).toEqual(both);
    expect((await emailsOf(`?name=${encodeURIComponent('髙橋')}`)).sort()).toEqual(both);
    expect(await emailsOf(`?name=${encodeURIComponent('髙橋一郎')}`)).toEqual(['takahashi.hd@example.jp']);
    expect(await emailsOf(`?name=${encodeURIComponent('高橋 次郎')}`)).toEqual(['takahashi@example.jp']);
    expect(await emailsOf(`?name=${encodeURIComponent('山崎')}`)).toEqual(['yamazaki@example.jp']);
    expect(await emailsOf(`?name=${encodeURIComponent('斎藤')}`)).toEqual(['saito@example.jp']);
    expect(await emailsOf(`?name=${encodeURIComponent('吉田')}`)).toEqual(['yoshida@example.jp']);
  });

  it('matches one or two characters anywhere, not only at the start (「田」 finds 山田)', async () => {
    expect((await emailsOf(`?name=${encodeURIComponent('田')}`)).sort()).toEqual(['yamada@example.jp', 'yoshida@example.jp']);
    expect(await emailsOf(`?name=${encodeURIComponent('太郎')}`)).toEqual(['yamada@example.jp']);
    expect(await emailsOf(`?name=${encodeURIComponent('ロウ')}`).then((e) => e.sort())).toEqual(
      ['takahashi.hd@example.jp', 'takahashi@example.jp', 'yamada@example.jp'].sort(),
    );
    // A match never spans the name and its フリガナ.
    expect(await emailsOf(`?name=${encodeURIComponent('太郎ヤ')}`)).toEqual([]);
    const total = await (await admin.get(`/api/users?name=${encodeURIComponent('藤')}`)).json();
    expect(total).toMatchObject({ total: 2, total_capped: false });
  });

  it('folds in PostgreSQL exactly as in the code (the stored key and the query agree)', async () => {
    const samples = [
      ...[...FOLD_FROM],
      ...Object.values(NAME_VARIANTS),
      'ﾔﾏﾀﾞ ﾀﾛｳ',
      'ＡＢＣ　ｄｅｆ',
      'ゔぁいおりん',
      '渡邊　德太郎',
      'ｶﾞｷﾞｸﾞ',
    ];
    const em = t.runtime.deps.orm.em.fork();
    for (const text of samples) {
      const [row] = await em.execute<{ key: string }[]>('select shop_search_fold(?) as key', [text]);
      expect(row?.key, text).toBe(searchKey(text));
    }
  });
});

describe('GET /api/users/export.csv', () => {
  const csvText = async (res: Response) => new TextDecoder('utf-8', { ignoreBOM: true }).decode(await res.arrayBuffer());

  it('writes the searched members as BOM UTF-8, formula cells as text, and audits it', async () => {
    const res = await admin.get(`/api/users/export.csv?name=${encodeURIComponent('藤')}&sort=kana`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(res.headers.get('content-disposition')).toMatch(
      /^attachment; filename="members_\d{8}-\d{4}\.csv"; filename\*=UTF-8''/,
    );
    const text = await csvText(res);
    expect(text.startsWith('\ufeff')).toBe(true);
    const lines = text.slice(1).split('\r\n');
    expect(lines[0]).toBe(
      '姓,名,セイ,メイ,メールアドレス,メールアドレスの確認,所属,所属名,その他の所属,お知らせメール,権限,登録日時,最終ログイン日時,会員ID',
    );
    expect(lines).toHaveLength(4); // header, 伊藤, 齋藤, and the last CRLF
    expect(lines[1]).toMatch(
      /^伊藤,誠,イトウ,マコト,ito@example\.jp,確認済み,消防・救急,〇〇消防局,,受け取る,一般会員,\d{4}\/\d\d\/\d\d \d\d:\d\d:\d\d,,/,
    );
    expect(lines[1]?.endsWith(ids['ito@example.jp'] as string)).toBe(true);
    // 齋藤's 所属名 starts a formula: written as text (a leading ').
    expect(lines[2]).toContain(`"'=HYPERLINK(""http://evil.example"")"`);
    expect(lines[3]).toBe('');
    const [entry] = await t.runtime.deps.orm.em
      .fork()
      .execute<{ actor_id: string; after: Record<string, unknown> }[]>(
        "select actor_id, after from audit_logs where action = 'user.export' order by created_at desc limit 1",
      );
    expect(entry).toMatchObject({
      actor_id: adminId,
      after: { name: '藤', sort: 'kana', encoding: 'utf-8', rows: 2 },
    });
    // The log says the order in words, not `kana`.
    const logged = await (await admin.get('/api/audit-logs?action=user.export')).json();
    expect(logged.audit_logs[0].changes).toContainEqual(
      expect.objectContaining({ label: '並び順', after: 'フリガナ順（五十音）' }),
    );
  });

  it('writes every member across batches in the list order, and CP932 when asked', async () => {
    const all = await emailsOf('?per_page=100');
    const res = await admin.get('/api/users/export.csv?encoding=shift_jis');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=Shift_JIS');
    const text = iconv.decode(Buffer.from(await res.arrayBuffer()), 'cp932');
    expect(text.startsWith('姓,名,セイ,メイ')).toBe(true);
    // 髙 and 﨑 are in CP932 (IBM extensions); 𠮷 is not: written as 〓.
    expect(text).toContain('髙橋,一郎,タカハシ,イチロウ');
    expect(text).toContain('〓田,実,ヨシダ,ミノル');
    const emails = text
      .trim()
      .split('\r\n')
      .slice(1)
      .map((line) => line.split(',')[4]);
    expect(emails).toEqual(all);
  });

  it('refuses members (403), bad filters (422), and an administrator past the limit (429)', async () => {
    const member = client();
    expect((await member.login('yamada@example.jp', 'member-pass-123')).status).toBe(200);
    expect((await member.get('/api/users/export.csv')).status).toBe(403);
    expect((await client().get('/api/users/export.csv')).status).toBe(401);
    expect((await admin.get('/api/users/export.csv?encoding=latin1')).status).toBe(422);
    expect((await admin.get('/api/users/export.csv?affiliations=9')).status).toBe(422);
    const before = await t.runtime.deps.orm.em
      .fork()
      .execute<{ n: number }[]>("select count(*)::int as n from audit_logs where action = 'user.export'");
    // Two were downloaded above.
    for (let i = 2; i < LIMITS.memberCsvPerAdmin.limit; i++) {
      const ok = await admin.get('/api/users/export.csv?email=nobody');
      expect(ok.status).toBe(200);
      await ok.arrayBuffer();
    }
    const refused = await admin.get('/api/users/export.csv');
    expect(refused.status).toBe(429);
    // It says the limit and when it resets (Japan time), not 「試行回数」.
    const { message } = await refused.json();
    expect(message).toMatch(
      /^会員CSVのダウンロードは1時間に10回までです。\d{4}年\d{1,2}月\d{1,2}日 \d{1,2}:\d{2}（日本時間）以降にもう一度お試しください。$/,
    );
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(3000);
    const after = await t.runtime.deps.orm.em
      .fork()
      .execute<{ n: number }[]>("select count(*)::int as n from audit_logs where action = 'user.export'");
    expect((after[0]?.n ?? 0) - (before[0]?.n ?? 0)).toBe(LIMITS.memberCsvPerAdmin.limit - 2);
  });
});

describe('last sign-in', () => {
  it('is recorded at each sign-in and shown in the list, the detail and the CSV (JST)', async () => {
    const id = ids['kawa@example.jp'] as string;
    const before = (await (await admin.get(`/api/users/${id}`)).json()).user;
    expect(before.last_sign_in_at).toBeNull();
    const started = Date.now();
    const member = client();
    expect((await member.login('kawa@example.jp', 'member-pass-123')).status).toBe(200);
    const after = (await (await admin.get(`/api/users/${id}`)).json()).user;
    const at = new Date(after.last_sign_in_at).getTime();
    expect(at).toBeGreaterThanOrEqual(started - 1_000);
    expect(at).toBeLessThanOrEqual(Date.now() + 1_000);
    // The edit version is not moved by a sign-in.
    expect(after.updated_at).toBe(before.updated_at);
    const listed = (await (await admin.get(`/api/users?email=kawa`)).json()).users[0];
    expect(listed.last_sign_in_at).toBe(after.last_sign_in_at);
    const [jst] = await t.runtime.deps.orm.em
      .fork()
      .execute<{ text: string }[]>(
        "select to_char(last_sign_in_at at time zone 'Asia/Tokyo', 'YYYY/MM/DD HH24:MI:SS') as text from users where id = ?",
        [id],
      );
    // The rate limit above is spent for `admin`: another administrator downloads.
    const csv = await (await other.get('/api/users/export.csv?email=kawa')).text();
    expect(csv).toContain(`,${jst?.text},${id}\r\n`);
  });
});

describe('the member CSV of many members', () => {
  it('streams them all, batch after batch, in the order of the list', async () => {
    const em = t.runtime.deps.orm.em.fork();
    // 2,500 more members (the trigger keys them as any writer's rows), some with フリガナ.
    const kana = ['ア', 'ガ', 'カ', 'ン'];
    await manyMembers(t.runtime.deps.orm, {
      to: 2500,
      email: 'bulk-{n}@example.jp',
      lastName: '会員',
      lastNameKana: cycle(['カイイン', null, null]),
      firstNameKana: cycle(Array.from({ length: 12 }, (_, k) => (k % 3 === 0 ? (kana[k % 4] as string) : null))),
      affiliation: 1,
      affiliationName: '所属',
      // Fifty members to each second: the order falls back to the id.
      createdAt: { stepSeconds: -1, period: 50 },
    });
    for (const sort of ['-created_at', 'kana', 'name']) {
      const res = await other.get(`/api/users/export.csv?sort=${sort}`);
      expect(res.status).toBe(200);
      const emails = (await res.text())
        .trim()
        .split('\r\n')
        .slice(1)
        .map((line) => line.split(',')[4]);
      const order = { '-created_at': 'created_at desc, id desc', kana: 'kana_sort, id', name: 'name_key, id' }[sort];
      const expected = await em.execute<{ email: string }[]>(`select email from users order by ${order}`);
      expect(emails, sort).toEqual(expected.map((row) => row.email));
    }
  });
});
