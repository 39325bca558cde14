import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createApp } from '../../src/app.ts';
import { createOrPromoteAdmin } from '../../src/modules/accounts/index.ts';
import { aMember } from '../support/factories.ts';
import { TestClient } from '../support/http-client.ts';
import { startTestRuntime, type TestRuntime } from '../support/runtime.ts';
import { WEB_ROOT } from '../support/server.ts';

const HTML = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };
const SAME_ORIGIN = { 'sec-fetch-site': 'same-origin' };

let t: TestRuntime;
let admin: TestClient;
let member: TestClient;
beforeAll(async () => {
  t = await startTestRuntime({ webRoot: WEB_ROOT });
  await createOrPromoteAdmin(t.runtime.deps.orm, { email: 'ops@example.jp', password: 'ops-pass-123' });
  await aMember(t.runtime.deps.orm, {
    email: 'm@example.jp',
    password: 'member-pass-123',
    lastName: 'a',
    firstName: 'b',
    emailVerified: true,
  });
  admin = new TestClient(t.app, '10.30.0.2');
  expect((await admin.login('ops@example.jp', 'ops-pass-123')).status).toBe(200);
  member = new TestClient(t.app, '10.30.0.1');
  expect((await member.login('m@example.jp', 'member-pass-123')).status).toBe(200);
});
afterAll(async () => t?.stop());

const page = (client: TestClient, path: string) => client.request('GET', path, { headers: HTML });

describe('who may open /admin/queues', () => {
  it('sends a signed-out browser to sign in, as the SPA does for every /admin page; the API answers 401 JSON', async () => {
    for (const path of ['/admin/queues', '/admin/queues/queue/mail']) {
      const res = await t.app.request(path, { headers: HTML });
      expect(res.status).toBe(302);
      expect(res.headers.get('location')).toBe('/login');
    }
    for (const headers of [{}, HTML]) {
      const api = await t.app.request('/admin/queues/api/queues', { headers });
      expect(api.status).toBe(401);
      expect(await api.json()).toEqual({ message: 'ログインしてください。' });
    }
  });

  it("shows a member the SPA's own 403 page (アクセスできません), not JSON; the API answers 403 JSON", async () => {
    const spaShell = await (await page(member, '/admin')).text();
    expect(spaShell).toContain('<div id="root">');
    for (const path of ['/admin/queues', '/admin/queues/', '/admin/queues/queue/payments']) {
      const res = await page(member, path);
      expect(res.status).toBe(403);
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
      // The SPA itself: its /admin guard renders the 403 page in the browser (tests/e2e/queue-dashboard.test.ts).
      expect(await res.text()).toBe(spaShell);
    }
    const api = await member.get('/admin/queues/api/queues');
    expect(api.status).toBe(403);
    expect(await api.json()).toEqual({ message: 'この操作を行う権限がありません。' });
  });

  it('shows a member a plain Japanese 403 page when no SPA is built', async () => {
    const withoutSpa = new TestClient(createApp({ ...t.runtime.deps, webRoot: undefined }), '10.30.0.3');
    await withoutSpa.login('m@example.jp', 'member-pass-123');
    const res = await page(withoutSpa, '/admin/queues');
    expect(res.status).toBe(403);
    const html = await res.text();
    expect(html).toContain('<html lang="ja">');
    expect(html).toContain('<h1>アクセスできません</h1>');
    expect(html).toContain('このページを表示する権限がありません。');
  });
});

describe('the dashboard an administrator gets', () => {
  it('is Japanese, titled like the other pages, and loads nothing from another origin', async () => {
    for (const path of ['/admin/queues', '/admin/queues/queue/mail']) {
      const res = await page(admin, path);
      expect(res.status).toBe(200);
      const html = await res.text();
      expect(html).toMatch(/<html lang="ja"/);
      expect(html).toContain('<title>ジョブキュー｜ライセンスストア</title>');
      expect(html).toContain('読み込み中');
      expect(html).not.toMatch(/\bLoading\b/);
      // No address outside this origin at all (bull-board's template links Google Fonts).
      expect(html).not.toMatch(/(?:https?:)?\/\/[a-z0-9.-]+\.[a-z]/i);
      // Everything it does load is ours and answers.
      const assets = [...html.matchAll(/(?:href|src)="(static\/[^"]+)"/g)].map((m) => m[1]);
      expect(assets.length).toBeGreaterThanOrEqual(4);
      for (const asset of assets) expect((await admin.get(`/admin/queues/${asset}`)).status, asset).toBe(200);
    }
  });

  it("uses bull-board's Japanese locale and links back to the admin menu", async () => {
    const html = await (await page(admin, '/admin/queues')).text();
    const json = html.match(/<script id="__UI_CONFIG__" type="application\/json">(.*?)<\/script>/s)?.[1];
    const uiConfig = JSON.parse(json ?? '{}');
    expect(uiConfig).toMatchObject({
      boardTitle: 'ジョブキュー',
      locale: { lng: 'ja-JP' },
      miscLinks: [
        { text: '管理メニューへ戻る', url: '/admin' },
        { text: '運用状況（滞りの件数）', url: '/admin/operations' },
      ],
      hideDocsLink: true,
    });
    const locale = await admin.get('/admin/queues/static/locales/ja-JP/messages.json');
    expect(locale.status).toBe(200);
    const words = JSON.stringify(await locale.json());
    // A delayed job waits for its time: 「予約」, never 「遅延」 (late); no English status inside a sentence.
    expect(words).toContain('"DELAYED":"予約"');
    expect(words).not.toContain('遅延');
    expect(words).not.toContain('{{status}}ジョブ');
    // Our own script (names for icon buttons, the way back, Japanese code names) and style, linked in.
    expect(html).toContain('<script defer src="/admin/queues/shop/dashboard.js"></script>');
    const script = await admin.get('/admin/queues/shop/dashboard.js');
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect(await script.text()).toContain('"SalePaid":"購入の記録"');
    expect((await admin.get('/admin/queues/shop/dashboard.css')).status).toBe(200);
  });

  it('names the queues and their jobs in Japanese (events/labels.ts)', async () => {
    const listed = (await (await admin.get('/admin/queues/api/queues')).json()).queues as {
      name: string;
      displayName: string;
    }[];
    expect(Object.fromEntries(listed.map((q) => [q.name, q.displayName]))).toEqual({
      mail: 'メール',
      payments: '決済',
      exports: 'CSV出力',
      announcements: 'お知らせ配信',
    });
  });

  it('lists the three queues, every one read-only: no clean, empty, obliterate, pause or retry', async () => {
    const api = await admin.get('/admin/queues/api/queues');
    expect(api.status).toBe(200);
    const listed = (await api.json()).queues as { name: string; readOnlyMode: boolean; allowRetries: boolean }[];
    expect(listed.map((q) => q.name).sort()).toEqual(['announcements', 'exports', 'mail', 'payments']);
    for (const queue of listed) expect(queue).toMatchObject({ readOnlyMode: true, allowRetries: false });
  });

  it('refuses every destructive call, even same-origin, and leaves the jobs alone', async () => {
    const mail = t.runtime.deps.queues.mail;
    // The sign-in notices of beforeAll may be waiting too (no worker runs here): count them once the
    // relay has published every outbox event, so none lands in the queue between the two counts.
    await vi.waitFor(
      async () => {
        const [row] = await t.runtime.deps.orm.em
          .fork()
          .execute<{ n: number }[]>('select count(*)::int as n from outbox_events where published_at is null');
        expect(row?.n).toBe(0);
      },
      { timeout: 15_000, interval: 100 },
    );
    const before = (await mail.getJobCounts('waiting')).waiting ?? 0;
    await mail.add('kept', { note: 'must survive' }, { jobId: 'kept-job' });
    const writes: [string, string, unknown?][] = [
      ['PUT', '/admin/queues/api/queues/mail/clean/waiting'],
      ['PUT', '/admin/queues/api/queues/mail/clean/failed'],
      ['PUT', '/admin/queues/api/queues/mail/clean/completed'],
      ['PUT', '/admin/queues/api/queues/mail/empty'],
      ['PUT', '/admin/queues/api/queues/mail/obliterate'],
      ['PUT', '/admin/queues/api/queues/mail/pause'],
      ['PUT', '/admin/queues/api/queues/mail/retry/failed'],
      ['PUT', '/admin/queues/api/queues/mail/promote'],
      ['PUT', '/admin/queues/api/queues/mail/kept-job/clean'],
      ['PUT', '/admin/queues/api/queues/mail/kept-job/retry'],
      ['PATCH', '/admin/queues/api/queues/mail/kept-job/update-data', { jobData: { note: 'changed' } }],
      ['POST', '/admin/queues/api/queues/mail/add', { name: 'forged', data: {} }],
    ];
    for (const [method, path, json = {}] of writes) {
      const res = await admin.request(method, path, { csrf: false, headers: SAME_ORIGIN, json });
      expect(res.status, `${method} ${path}`).toBe(405);
    }
    // "Pause all" skips read-only queues: it answers, and pauses nothing.
    expect(
      (await admin.request('PUT', '/admin/queues/api/queues/pause', { csrf: false, headers: SAME_ORIGIN })).status,
    ).toBeLessThan(300);
    for (const queue of Object.values(t.runtime.deps.queues)) expect(await queue.isPaused()).toBe(false);
    expect((await mail.getJob('kept-job'))?.data).toEqual({ note: 'must survive' });
    expect(await mail.getJobCounts('waiting')).toEqual({ waiting: before + 1 });
    await mail.remove('kept-job');
  });

  it('still takes unsafe calls from this origin only (CSRF)', async () => {
    const crossSite = await admin.request('PUT', '/admin/queues/api/queues/mail/pause', {
      csrf: false,
      headers: { 'sec-fetch-site': 'cross-site' },
    });
    expect(crossSite.status).toBe(419);
  });
});
