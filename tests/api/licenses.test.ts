import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrPromoteAdmin } from '../../src/modules/accounts/index.ts';
import { aMember } from '../support/factories.ts';
import { TestClient } from '../support/http-client.ts';
import { htmlPage, jpegWithGps, pixelFloodPng, png, svgWithScript, webp } from '../support/images.ts';
import { startTestRuntime, type TestRuntime } from '../support/runtime.ts';

let t: TestRuntime;
let admin: TestClient;
let member: TestClient;
let seq = 0;

beforeAll(async () => {
  t = await startTestRuntime();
  await createOrPromoteAdmin(t.runtime.deps.orm, { email: 'admin@example.jp', password: 'admin-pass-123' });
  await createOrPromoteAdmin(t.runtime.deps.orm, { email: 'admin2@example.jp', password: 'admin-pass-123' });
  await aMember(t.runtime.deps.orm, {
    email: 'member@example.jp',
    password: 'member-pass-123',
    lastName: '会員',
    firstName: '一郎',
    emailVerified: true,
  });
  admin = new TestClient(t.app, '10.1.0.1');
  await admin.login('admin@example.jp', 'admin-pass-123');
  member = new TestClient(t.app, '10.1.0.2');
  await member.login('member@example.jp', 'member-pass-123');
});
afterAll(async () => t?.stop());

type Part = [string, string] | [string, Buffer, string];
function form(parts: Part[]): FormData {
  const data = new FormData();
  for (const part of parts) {
    if (part.length === 2) data.append(part[0], part[1]);
    else data.append(part[0], new Blob([new Uint8Array(part[1])]), part[2]);
  }
  return data;
}
const fields = (over: Record<string, string> = {}): Part[] =>
  Object.entries({ name: `BLS講習ライセンス ${++seq}`, description: '一次救命処置の講習です。', price: '11000', ...over });
const send = (client: TestClient, path: string, parts: Part[]) => client.request('POST', path, { body: form(parts) });
const uploadsDir = () => join(t.env.dataDir, 'uploads', 'licenses');
const storedFiles = () => (existsSync(uploadsDir()) ? readdirSync(uploadsDir()) : []);

async function create(parts: Part[]) {
  const res = await send(admin, '/api/licenses/create', parts);
  expect(res.status, await res.clone().text()).toBe(201);
  return (await res.json()).license;
}

describe('licence create and read', () => {
  it('creates a licence with pictures and shows it to members in the seed shape', async () => {
    const license = await create([
      ...fields(),
      ['file[0]', await jpegWithGps(), 'camera.jpg'],
      ['file[1]', await png(), 'b.png'],
    ]);
    expect(license).toMatchObject({ price: 11000, picture_directory: '/uploads/licenses' });
    expect(license.pictures_pathes).toHaveLength(2);
    expect(license.pictures_pathes[0]).toMatch(/^\/uploads\/licenses\/[0-9a-f-]{36}\.jpg$/);

    const res = await member.get(`/api/licenses/${license.id}`);
    expect(res.status).toBe(200);
    // The detail adds the sale state now (no seat limit, no sale period: on sale).
    expect((await res.json()).license).toEqual({ ...license, sale_state: 'on_sale', remaining_seats: null });
    const list = await (await member.get('/api/licenses')).json();
    expect(list).toMatchObject({ page: 1, per_page: 20 });
    expect(list.licenses.some((l: { id: number }) => l.id === license.id)).toBe(true);
    expect(list.total).toBeGreaterThanOrEqual(1);

    const audit = await t.runtime.deps.orm.em
      .fork()
      .execute("select action, actor_email from audit_logs where target_type = 'license' and target_id = ?", [
        String(license.id),
      ]);
    expect(audit).toEqual([{ action: 'license.create', actor_email: 'admin@example.jp' }]);
  });

  it('serves pictures re-encoded without metadata, with their stored type, nosniff and a long cache', async () => {
    const license = await create([...fields(), ['file[0]', await jpegWithGps(), 'gps.jpg']]);
    const res = await member.get(license.pictures_pathes[0]);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/jpeg');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('cache-control')).toContain('immutable');
    const body = Buffer.from(await res.arrayBuffer());
    const meta = await sharp(body).metadata();
    expect(meta.exif).toBeUndefined();
    expect(meta.xmp).toBeUndefined();
    expect(body.includes(Buffer.from('SecretCam'))).toBe(false);
    const thumb = await member.get(license.pictures[0].thumbnail_url);
    expect(thumb.status).toBe(200);
    expect((await sharp(Buffer.from(await thumb.arrayBuffer())).metadata()).width).toBe(480);
  });

  it('answers 404 with the seed message for a missing licence, and 404 for odd ids or picture names', async () => {
    const res = await member.get('/api/licenses/999999');
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ message: 'エラー: ライセンスが見つかりませんでした。' });
    expect((await member.get('/api/licenses/abc')).status).toBe(404);
    expect((await member.get('/uploads/licenses/..%2f..%2fetc%2fpasswd')).status).toBe(404);
    expect((await member.get('/uploads/licenses/00000000-0000-0000-0000-000000000000.jpg')).status).toBe(404);
  });

  it('pages and sorts the list', async () => {
    for (const price of ['500', '900', '700']) await create(fields({ price }));
    const page = await (await admin.get('/api/licenses?per_page=2&page=1&sort=-price')).json();
    expect(page.licenses).toHaveLength(2);
    expect(page.per_page).toBe(2);
    expect(page.licenses[0].price).toBeGreaterThanOrEqual(page.licenses[1].price);
    const bad = await admin.get('/api/licenses?per_page=1000');
    expect(bad.status).toBe(422);
    expect((await admin.get('/api/licenses?sort=password')).status).toBe(422);
  });

  it('sorts by every sort it offers, in the direction its label says', async () => {
    const all = (await (await admin.get('/api/licenses?per_page=100')).json()).licenses as Record<string, string | number>[];
    expect(all.length).toBeGreaterThan(2);
    for (const field of ['id', 'name', 'price', 'updated_at']) {
      for (const direction of ['', '-']) {
        const rows = (await (await admin.get(`/api/licenses?per_page=100&sort=${direction}${field}`)).json()).licenses as Record<
          string,
          string | number
        >[];
        const values = rows.map((r) => r[field] as string | number);
        const sorted = [...values].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
        expect(values, `${direction}${field}`).toEqual(direction ? sorted.reverse() : sorted);
      }
    }
  });
});

describe('bad input', () => {
  it.each([
    ['49', '価格は50〜9,999,999円の整数で入力してください。'],
    ['10000000', '価格は50〜9,999,999円の整数で入力してください。'],
    ['abc', '価格は50〜9,999,999円の整数で入力してください。'],
    ['1.5', '価格は50〜9,999,999円の整数で入力してください。'],
    ['', '価格を入力してください。'],
  ])('refuses price %j', async (price, message) => {
    const res = await send(admin, '/api/licenses/create/validate', fields({ price }));
    expect(res.status).toBe(422);
    expect((await res.json()).errors.price).toEqual([message]);
  });

  it('refuses a 101-character name and a 5,001-character description', async () => {
    const res = await send(
      admin,
      '/api/licenses/create/validate',
      fields({ name: 'x'.repeat(101), description: 'y'.repeat(5001) }),
    );
    const body = await res.json();
    expect(body.errors.name).toEqual(['ライセンス名は100文字以内で入力してください。']);
    expect(body.errors.description).toEqual(['説明は5,000文字以内で入力してください。']);
  });

  it.each([
    ['an HTML page named x.png', htmlPage, 'x.png'],
    ['an SVG with a script', svgWithScript, 'logo.svg'],
    ['a truncated JPEG', Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10]), 'cut.jpg'],
  ])('refuses %s by its content', async (_label, data, name) => {
    const before = storedFiles().length;
    const res = await send(admin, '/api/licenses/create', [
      ...fields(),
      ['file[0]', await png(), 'ok.png'],
      ['file[1]', data, name],
    ]);
    expect(res.status).toBe(422);
    const body = await res.json();
    expect(body.errors['file.1'][0]).toContain('2枚目の画像');
    // Nothing half-written: the good picture was not stored either.
    expect(storedFiles().length).toBe(before);
  });

  it('refuses a pixel flood (a 30000×30000 PNG) without decoding it', async () => {
    const res = await send(admin, '/api/licenses/create/validate', [...fields(), ['file[0]', pixelFloodPng(), 'flood.png']]);
    expect(res.status).toBe(422);
    expect((await res.json()).errors['file.0'][0]).toContain('画素数が大きすぎます');
  });

  it('answers 413 for a 6 MB file', async () => {
    const big = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff]), Buffer.alloc(6 * 1024 * 1024, 1)]);
    const res = await send(admin, '/api/licenses/create', [...fields(), ['file[0]', big, 'big.jpg']]);
    expect(res.status).toBe(413);
    expect((await res.json()).message).toContain('5MB');
  });

  it('refuses 11 files', async () => {
    const picture = await png(40, 40);
    const parts: Part[] = [...fields()];
    for (let i = 0; i < 11; i++) parts.push([`file[${i}]`, picture, `p${i}.png`]);
    const res = await send(admin, '/api/licenses/create', parts);
    expect(res.status).toBe(422);
    expect((await res.json()).errors.file).toEqual(['画像は10枚までです。']);
  });

  it('stores a picture named ../../etc/passwd under a server name, the client name kept as metadata only', async () => {
    const license = await create([...fields(), ['file[0]', await png(), '../../etc/passwd']]);
    expect(license.pictures[0].filename).toMatch(/^[0-9a-f-]{36}\.png$/);
    // busboy keeps only the last path segment; either way it is metadata, never a path.
    expect(license.pictures[0].original_name).toBe('passwd');
    expect(existsSync(join(t.env.dataDir, 'etc'))).toBe(false);
  });

  it('strips a payload appended to a JPEG (polyglot)', async () => {
    const polyglot = Buffer.concat([await jpegWithGps(), Buffer.from('<script>alert(1)</script>')]);
    const license = await create([...fields(), ['file[0]', polyglot, 'poly.jpg']]);
    const served = Buffer.from(await (await member.get(license.pictures_pathes[0])).arrayBuffer());
    expect(served.includes(Buffer.from('<script>'))).toBe(false);
  });

  it('answers 400 for a body that is neither multipart nor JSON', async () => {
    const res = await admin.request('POST', '/api/licenses/create', {
      body: 'name=x&price=1000',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(res.status).toBe(400);
  });
});

describe('editing', () => {
  it('keeps, removes, adds and reorders pictures, and records before/after', async () => {
    const license = await create([
      ...fields(),
      ['file[0]', await png(100, 100, { r: 255, g: 0, b: 0 }), 'a.png'],
      ['file[1]', await png(100, 100, { r: 0, g: 255, b: 0 }), 'b.png'],
      ['file[2]', await png(100, 100, { r: 0, g: 0, b: 255 }), 'c.png'],
    ]);
    const [a, b, c] = license.pictures.map((p: { filename: string }) => p.filename);
    const res = await send(admin, `/api/licenses/${license.id}`, [
      ...fields({ name: '改訂版', price: '12000', updated_at: license.updated_at }),
      ['filenames[0]', c],
      ['filenames[1]', a],
      ['file[0]', await webp(), 'd.webp'],
    ]);
    expect(res.status, await res.clone().text()).toBe(200);
    const updated = (await res.json()).license;
    expect(updated).toMatchObject({ name: '改訂版', price: 12000 });
    expect(updated.pictures.map((p: { filename: string }) => p.filename).slice(0, 2)).toEqual([c, a]);
    expect(updated.pictures[2].filename).toMatch(/\.webp$/);
    expect(storedFiles()).not.toContain(b);
    expect((await member.get(`/uploads/licenses/${b}`)).status).toBe(404);
    const audit = await t.runtime.deps.orm.em
      .fork()
      .execute("select before, after from audit_logs where action = 'license.update' and target_id = ?", [String(license.id)]);
    expect(audit[0]?.before.pictures).toEqual([a, b, c]);
    expect(audit[0]?.after.price).toBe(12000);
  });

  it('answers 409 to a stale edit, from either of two administrators', async () => {
    const license = await create(fields());
    const other = new TestClient(t.app, '10.1.0.3');
    await other.login('admin2@example.jp', 'admin-pass-123');
    const first = await send(other, `/api/licenses/${license.id}`, fields({ name: '先に保存', updated_at: license.updated_at }));
    expect(first.status).toBe(200);
    const late = await send(admin, `/api/licenses/${license.id}`, fields({ name: '後から保存', updated_at: license.updated_at }));
    expect(late.status).toBe(409);
    expect((await late.json()).message).toContain('他の管理者がこのライセンスを先に更新しました');
    const check = await send(admin, `/api/licenses/${license.id}/validate`, fields({ updated_at: license.updated_at }));
    expect(check.status).toBe(409);
    expect((await (await member.get(`/api/licenses/${license.id}`)).json()).license.name).toBe('先に保存');
  });

  it('refuses pictures that belong to another licence', async () => {
    const one = await create([...fields(), ['file[0]', await png(), 'a.png']]);
    const two = await create(fields());
    const res = await send(admin, `/api/licenses/${two.id}`, [
      ...fields({ updated_at: two.updated_at }),
      ['filenames[0]', one.pictures[0].filename],
    ]);
    expect(res.status).toBe(422);
    expect((await res.json()).errors.filenames).toBeDefined();
  });
});

describe('picture order (order[0..n])', () => {
  const colour = (r: number, g: number, b: number) => png(60, 60, { r, g, b });
  const names = (license: { pictures: { original_name: string }[] }) => license.pictures.map((p) => p.original_name);

  it('places new pictures before, between and after stored ones, exactly as sent, and audits that order', async () => {
    const license = await create([
      ...fields(),
      ['file[0]', await colour(255, 0, 0), 'a.png'],
      ['file[1]', await colour(0, 255, 0), 'b.png'],
    ]);
    const [a, b] = license.pictures.map((p: { filename: string }) => p.filename);
    const parts: Part[] = [
      ...fields({ updated_at: license.updated_at }),
      ['filenames[0]', a],
      ['filenames[1]', b],
      ['file[0]', await colour(0, 0, 255), 'new0.png'],
      ['file[1]', await colour(9, 9, 9), 'new1.png'],
      ['file[2]', await webp(), 'new2.webp'],
      ['order[0]', 'new:1'],
      ['order[1]', `stored:${b}`],
      ['order[2]', 'new:0'],
      ['order[3]', `stored:${a}`],
      ['order[4]', 'new:2'],
    ];
    expect((await send(admin, `/api/licenses/${license.id}/validate`, parts)).status).toBe(200);
    const res = await send(admin, `/api/licenses/${license.id}`, parts);
    expect(res.status, await res.clone().text()).toBe(200);
    const updated = (await res.json()).license;
    expect(names(updated)).toEqual(['new1.png', 'b.png', 'new0.png', 'a.png', 'new2.webp']);
    expect(updated.pictures[1].filename).toBe(b);
    expect(updated.pictures[3].filename).toBe(a);
    expect(updated.pictures_pathes).toEqual(updated.pictures.map((p: { url: string }) => p.url));
    // Members get the same order, read back from the database.
    const read = (await (await member.get(`/api/licenses/${license.id}`)).json()).license;
    expect(names(read)).toEqual(names(updated));
    const audit = await t.runtime.deps.orm.em
      .fork()
      .execute("select after from audit_logs where action = 'license.update' and target_id = ?", [String(license.id)]);
    expect(audit[0]?.after.pictures).toEqual(updated.pictures.map((p: { filename: string }) => p.filename));

    // Moving a stored picture behind a new one needs no new file at all: order alone rearranges.
    const again = await send(admin, `/api/licenses/${license.id}`, [
      ...fields({ updated_at: updated.updated_at }),
      ...updated.pictures.map((p: { filename: string }, i: number) => [`filenames[${i}]`, p.filename] as Part),
      ...[...updated.pictures]
        .reverse()
        .map((p: { filename: string }, i: number) => [`order[${i}]`, `stored:${p.filename}`] as Part),
    ]);
    expect(again.status).toBe(200);
    expect(names((await again.json()).license)).toEqual([...names(updated)].reverse());
  });

  it('creates a licence in the order given, and keeps the old contract (file[] in order) without it', async () => {
    const ordered = await create([
      ...fields(),
      ['file[0]', await colour(1, 2, 3), 'first-sent.png'],
      ['file[1]', await colour(3, 2, 1), 'second-sent.png'],
      ['order[0]', 'new:1'],
      ['order[1]', 'new:0'],
    ]);
    expect(names(ordered)).toEqual(['second-sent.png', 'first-sent.png']);
    const plain = await create([
      ...fields(),
      ['file[0]', await colour(1, 2, 3), 'first-sent.png'],
      ['file[1]', await colour(3, 2, 1), 'second-sent.png'],
    ]);
    expect(names(plain)).toEqual(['first-sent.png', 'second-sent.png']);
  });

  it('answers 422 in Japanese to an order that does not match filenames[] and file[], storing nothing', async () => {
    const license = await create([
      ...fields(),
      ['file[0]', await colour(200, 0, 0), 'a.png'],
      ['file[1]', await colour(0, 200, 0), 'b.png'],
    ]);
    const [a, b] = license.pictures.map((p: { filename: string }) => p.filename);
    const base = async (): Promise<Part[]> => [
      ...fields({ name: '並び順の誤り', updated_at: license.updated_at }),
      ['filenames[0]', a],
      ['filenames[1]', b],
      ['file[0]', await colour(0, 0, 200), 'n.png'],
    ];
    const mismatch = '画像の並び順が送信された画像と一致しません。画面を読み込み直してください。';
    const cases: [string, string[], string][] = [
      ['a kept picture left out', [`stored:${a}`, 'new:0'], `${mismatch}（保存済みの画像）`],
      ['a kept picture twice', [`stored:${a}`, `stored:${a}`, `stored:${b}`, 'new:0'], `${mismatch}（保存済みの画像）`],
      [
        'a picture not in filenames[]',
        [`stored:${a}`, `stored:${b}`, 'stored:ffffffff-0000-0000-0000-000000000000.png', 'new:0'],
        `${mismatch}（保存済みの画像）`,
      ],
      ['a new picture left out', [`stored:${a}`, `stored:${b}`], `${mismatch}（新しい画像）`],
      ['a new picture that was not sent', [`stored:${a}`, `stored:${b}`, 'new:0', 'new:1'], `${mismatch}（新しい画像）`],
      ['a new picture twice', ['new:0', `stored:${a}`, 'new:0', `stored:${b}`], `${mismatch}（新しい画像）`],
      [
        'an entry of neither kind',
        [`stored:${a}`, `stored:${b}`, 'first'],
        '画像の並び順の3番目は「stored:ファイル名」か「new:番号」で指定してください。',
      ],
      [
        'a malformed number',
        [`stored:${a}`, `stored:${b}`, 'new:00'],
        '画像の並び順の3番目は「stored:ファイル名」か「new:番号」で指定してください。',
      ],
    ];
    const before = storedFiles().length;
    for (const [label, order, message] of cases) {
      const parts = [...(await base()), ...order.map((entry, i) => [`order[${i}]`, entry] as Part)];
      for (const path of [`/api/licenses/${license.id}/validate`, `/api/licenses/${license.id}`]) {
        const res = await send(admin, path, parts);
        expect(res.status, `${label} ${path}`).toBe(422);
        const body = await res.json();
        expect(body.message).toBe('不正な値が入力されました。');
        expect(body.errors.order, label).toContain(message);
      }
    }
    expect(storedFiles().length).toBe(before);
    const unchanged = (await (await admin.get(`/api/licenses/${license.id}`)).json()).license;
    expect(unchanged.name).toBe(license.name);
    expect(unchanged.updated_at).toBe(license.updated_at);
    expect(unchanged.pictures.map((p: { filename: string }) => p.filename)).toEqual([a, b]);

    // A create has nothing stored to keep.
    for (const path of ['/api/licenses/create/validate', '/api/licenses/create']) {
      const res = await send(admin, path, [
        ...fields(),
        ['file[0]', await colour(5, 5, 5), 'x.png'],
        ['order[0]', `stored:${a}`],
        ['order[1]', 'new:0'],
      ]);
      expect(res.status, path).toBe(422);
      expect((await res.json()).errors.order).toEqual([`${mismatch}（保存済みの画像）`]);
    }
    expect(storedFiles().length).toBe(before);
  });
});

describe('permissions', () => {
  it('keeps members and visitors away from the write calls', async () => {
    const license = await create(fields());
    for (const path of [
      '/api/licenses/create',
      '/api/licenses/create/validate',
      `/api/licenses/${license.id}`,
      `/api/licenses/${license.id}/validate`,
    ]) {
      expect((await send(member, path, fields())).status, path).toBe(403);
      const visitor = new TestClient(t.app, '10.1.0.9');
      expect((await send(visitor, path, fields())).status, path).toBe(401);
    }
    expect((await new TestClient(t.app).get('/api/licenses')).status).toBe(401);
  });
});

describe('publishing and deleting', () => {
  it('hides a 非公開 licence from members — catalogue, detail and checkout — and shows it to administrators', async () => {
    const hidden = await create(fields({ published: 'false' }));
    expect(hidden.published).toBe(false);
    const ids = async (client: TestClient) =>
      ((await (await client.get('/api/licenses?per_page=100')).json()).licenses as { id: number }[]).map((l) => l.id);
    expect(await ids(admin)).toContain(hidden.id);
    expect(await ids(member)).not.toContain(hidden.id);
    expect((await member.get(`/api/licenses/${hidden.id}`)).status).toBe(404);
    const buy = await member.post('/api/licenses/stripe', { licenseId: hidden.id, distribution: true });
    expect(buy.status).toBe(422);
    expect((await buy.json()).errors.licenseId).toEqual(['このライセンスは現在販売していません。']);

    // Published again by an edit; an edit that leaves the field out keeps the state.
    const republished = await send(admin, `/api/licenses/${hidden.id}`, [
      ...fields({ published: 'true' }),
      ['updated_at', hidden.updated_at],
    ]);
    expect((await republished.json()).license.published).toBe(true);
    expect(await ids(member)).toContain(hidden.id);
    const current = (await (await admin.get(`/api/licenses/${hidden.id}`)).json()).license;
    const untouched = await send(admin, `/api/licenses/${hidden.id}`, [...fields(), ['updated_at', current.updated_at]]);
    expect((await untouched.json()).license.published).toBe(true);
    expect((await send(admin, '/api/licenses/create/validate', fields({ published: 'maybe' }))).status).toBe(422);
  });

  it('deletes a licence nobody started to buy, pictures included, audited; refuses one that was (409)', async () => {
    const before = storedFiles().length;
    const license = await create([...fields(), ['file[0]', await png(), 'a.png']]);
    expect(storedFiles().length).toBe(before + 2);
    // Administrators are told beforehand whether 削除する can succeed; members are not told at all.
    expect((await (await admin.get(`/api/licenses/${license.id}`)).json()).license.deletable).toBe(true);
    expect((await (await member.get(`/api/licenses/${license.id}`)).json()).license).not.toHaveProperty('deletable');
    expect((await member.request('DELETE', `/api/licenses/${license.id}`)).status).toBe(403);
    const gone = await admin.request('DELETE', `/api/licenses/${license.id}`);
    expect(gone.status).toBe(200);
    expect((await admin.get(`/api/licenses/${license.id}`)).status).toBe(404);
    expect(storedFiles().length).toBe(before);
    const audit = await t.runtime.deps.orm.em
      .fork()
      .execute("select count(*)::int as n from audit_logs where action = 'license.delete' and target_id = ?", [
        String(license.id),
      ]);
    expect(audit[0]?.n).toBe(1);
    expect((await admin.request('DELETE', `/api/licenses/${license.id}`)).status).toBe(404);

    const sold = await create(fields());
    await t.runtime.deps.orm.em.fork().execute('update licenses set checkout_started_at = now() where id = ?', [sold.id]);
    expect((await (await admin.get(`/api/licenses/${sold.id}`)).json()).license.deletable).toBe(false);
    const refused = await admin.request('DELETE', `/api/licenses/${sold.id}`);
    expect(refused.status).toBe(409);
    expect((await refused.json()).message).toContain('非公開');
  });
});

describe('price as people type it', () => {
  it('accepts 「12,000」「１２０００」「¥12,000」「12000円」 as 12000, and still refuses words and decimals', async () => {
    for (const price of ['12,000', '１２０００', '¥12,000', '￥１２，０００', '12000円', ' 12 000 ']) {
      const res = await send(admin, '/api/licenses/create/validate', fields({ price }));
      expect(res.status, price).toBe(200);
      expect((await res.json()).license.price, price).toBe(12000);
    }
    for (const price of ['12.5', '十二', '-100', '12,000ドル']) {
      expect((await send(admin, '/api/licenses/create/validate', fields({ price }))).status, price).toBe(422);
    }
  });
});
