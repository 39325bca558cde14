import { randomUUID } from 'node:crypto';
import iconv from 'iconv-lite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonb, db as kyselyOf, millisecondsAgo, now } from '../../src/db/kysely.ts';
import { createOrPromoteAdmin } from '../../src/modules/accounts/index.ts';
import { createLicense } from '../../src/modules/licenses/index.ts';
import { aLicense, aMember } from '../support/factories.ts';
import { TestClient } from '../support/http-client.ts';
import { buyThroughStripe, type ShopWithStripe, startShopWithStripe } from '../support/stripe.ts';
import { eventually } from '../support/wait.ts';

let shop: ShopWithStripe;
let admin: TestClient;
let licenseId: number;
const ADMIN = 'audit-admin@example.jp';
const PASSWORD = 'admin-pass-123';

const db = () => shop.runtime.deps.orm.em.fork();

beforeAll(async () => {
  shop = await startShopWithStripe();
  const license = await createLicense(
    shop.runtime.deps.orm,
    shop.runtime.deps.files,
    { id: 'test', email: 'test' },
    { name: 'ACLS 講習ライセンス', description: '', price: 12_100 },
    [],
  );
  licenseId = license.id;
  await createOrPromoteAdmin(shop.runtime.deps.orm, { email: ADMIN, password: PASSWORD });
  admin = new TestClient(shop.app, '10.72.0.1');
  expect((await admin.login(ADMIN, PASSWORD)).status).toBe(200);
}, 60_000);
afterAll(async () => shop?.stop());

async function aBuyer(lastName: string, firstName: string) {
  const email = `buyer-${randomUUID().slice(0, 8)}@example.jp`;
  const buyer = { email, password: 'buyer-pass-123', lastName, firstName, affiliation: 5, affiliationName: '〇〇病院' };
  const user = await aMember(shop.runtime.deps.orm, buyer);
  const client = new TestClient(shop.app, `10.72.1.${Math.floor(Math.random() * 200) + 1}`);
  expect((await client.login(email, 'buyer-pass-123')).status).toBe(200);
  return { client, email, id: user.id };
}

describe('payments inbox rows', () => {
  it('show the amount and the buyer of each event, the member as they are now', async () => {
    const buyer = await aBuyer('髙橋', '一郎');
    const { sessionId } = await buyThroughStripe(shop, buyer.client, licenseId);
    const list = await eventually(
      async () => {
        const body = await (await admin.get(`/api/payments/events?session=${sessionId}`)).json();
        return body.events.some((e: { state: string }) => e.state === 'processed') ? body : null;
      },
      15_000,
      'the processed event',
    );
    expect(list.events[0]).toMatchObject({
      amount: 12_100,
      currency: 'jpy',
      buyer: { user_id: buyer.id, name: '髙橋 一郎', email: buyer.email },
      buyer_deleted: false,
    });
    // Renamed since: the inbox names the member as they are now (accounts module), not as they were.
    await db().execute('update users set last_name = ? where id = ?', ['高橋', buyer.id]);
    const again = await (await admin.get(`/api/payments/events?session=${sessionId}`)).json();
    expect(again.events[0].buyer.name).toBe('高橋 一郎');
    const detail = await (await admin.get(`/api/payments/events/${again.events[0].id}`)).json();
    expect(detail.event).toMatchObject({ amount: 12_100, buyer: { name: '高橋 一郎' } });

    // A member deleted since: the amount stays, the buyer is marked gone.
    await db().execute('update checkout_sessions set user_id = null where stripe_session_id = ?', [sessionId]);
    const gone = await (await admin.get(`/api/payments/events?session=${sessionId}`)).json();
    expect(gone.events[0]).toMatchObject({ amount: 12_100, buyer: null, buyer_deleted: true });
  });
});

/** A finished reconciliation run that found two differences and told the administrators. */
async function aFlaggedRun() {
  const runId = randomUUID();
  const findingIds = [randomUUID(), randomUUID()];
  const run = { id: runId, trigger: 'manual', days: 7, state: 'done', findings: 2, notified: 'findings' };
  await kyselyOf(db())
    .insertInto('reconciliation_runs')
    .values({ ...run, created_at: now(), finished_at: now() })
    .execute();
  await kyselyOf(db())
    .insertInto('payment_findings')
    .values(
      findingIds.map((id, i) => ({
        id,
        run_id: runId,
        kind: 'paid_without_sale',
        stripe_session_id: `cs_test_planted_${i}_${runId.slice(0, 8)}`,
        stripe_amount: 8800,
        stripe_currency: 'jpy',
        detail: '売上がありません。',
        created_at: now(),
      })),
    )
    .execute();
  return { runId, findingIds: findingIds as [string, string] };
}

const unacknowledged = async () =>
  ((await (await admin.get('/api/payments/reconciliations?unacknowledged=true')).json()).reconciliations as { id: string }[]).map(
    (r) => r.id,
  );

describe('findings marked 確認済み', () => {
  it('one by one with a note (who, when, note shown), audited; the last one takes its run off the unacknowledged list', async () => {
    const { runId, findingIds } = await aFlaggedRun();
    expect(await unacknowledged()).toContain(runId);

    const first = await admin.post(`/api/payments/findings/${findingIds[0]}/acknowledge`, { note: '返金済みを確認' });
    expect(first.status, await first.clone().text()).toBe(200);
    expect(await first.json()).toMatchObject({ message: '確認済みにしました。', run_acknowledged: false });
    let detail = await (await admin.get(`/api/payments/reconciliations/${runId}`)).json();
    const shown = detail.findings.find((f: { id: string }) => f.id === findingIds[0]);
    expect(shown).toMatchObject({ acknowledged_by: ADMIN, acknowledgement_note: '返金済みを確認' });
    expect(Date.parse(shown.acknowledged_at)).toBeGreaterThan(Date.now() - 60_000);
    expect(detail.findings.find((f: { id: string }) => f.id === findingIds[1]).acknowledged_at).toBeNull();
    expect(detail.reconciliation).toMatchObject({ findings: 2, open_findings: 1, needs_attention: true });
    expect(await unacknowledged()).toContain(runId);

    // Marking it twice keeps the first mark.
    const twice = await admin.post(`/api/payments/findings/${findingIds[0]}/acknowledge`, { note: '別のメモ' });
    expect((await twice.json()).message).toBe('すでに確認済みです。');

    const last = await admin.post(`/api/payments/findings/${findingIds[1]}/acknowledge`, { note: 'Stripe で返金しました' });
    expect(await last.json()).toMatchObject({ run_acknowledged: true });
    detail = await (await admin.get(`/api/payments/reconciliations/${runId}`)).json();
    expect(detail.reconciliation).toMatchObject({ open_findings: 0, needs_attention: false, acknowledged_by: ADMIN });
    expect(await unacknowledged()).not.toContain(runId);

    const logs = await (await admin.get(`/api/audit-logs?action=payment_finding.acknowledge&target_id=${findingIds[0]}`)).json();
    expect(logs.audit_logs).toHaveLength(1);
    expect(logs.audit_logs[0]).toMatchObject({
      action_label: '照合の差異を確認済みにする',
      target_label: '照合の差異',
      actor_email: ADMIN,
    });
    expect(logs.audit_logs[0].changes).toContainEqual({ field: 'note', label: 'メモ', before: null, after: '返金済みを確認' });
  });

  it('a note is required (422 in Japanese); unknown findings are 404; members 403', async () => {
    const { findingIds } = await aFlaggedRun();
    for (const body of [{}, { note: '   ' }, { note: 'x'.repeat(501) }, { note: 5 }]) {
      const res = await admin.post(`/api/payments/findings/${findingIds[0]}/acknowledge`, body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      const json = await res.json();
      expect(json.message).toBe('不正な値が入力されました。');
      expect(json.errors.note[0]).toMatch(/メモ/);
    }
    expect((await admin.post(`/api/payments/findings/${randomUUID()}/acknowledge`, { note: 'x' })).status).toBe(404);
    expect((await admin.post('/api/payments/findings/not-a-uuid/acknowledge', { note: 'x' })).status).toBe(404);
    const member = await aBuyer('会員', '花子');
    expect((await member.client.post(`/api/payments/findings/${findingIds[0]}/acknowledge`, { note: 'x' })).status).toBe(403);
  });
});

interface Entry {
  action: string;
  actor_email: string | null;
  target_id: string;
  after: Record<string, unknown>;
}
const signInEntries = (since: Date) =>
  db().execute<Entry[]>(
    `select action, actor_email, target_id, after from audit_logs
      where action like 'admin.sign_in%' and created_at >= ? order by created_at`,
    [since],
  );

describe('administrator sign-ins in the audit log', () => {
  it('records a successful sign-in with address, browser and method, never a password or code', async () => {
    const since = new Date();
    const client = new TestClient(shop.app, '198.51.100.7');
    const res = await client.request('POST', '/api/login', {
      json: { email: ADMIN, password: PASSWORD },
      headers: { 'user-agent': 'Mozilla/5.0 (Test) Chrome/156' },
    });
    expect((await res.json()).two_factor_required).toBe(true);
    const { secondFactor } = await import('../support/two-factor.ts');
    const step = await client.request('POST', '/api/login/two-factor', {
      json: await secondFactor(ADMIN),
      headers: { 'user-agent': 'Mozilla/5.0 (Test) Chrome/156' },
    });
    expect(step.status).toBe(200);
    const entries = await signInEntries(since);
    expect(entries).toHaveLength(1);
    const [{ actor_email, after, action }] = entries as [Entry];
    expect({ action, actor_email }).toEqual({ action: 'admin.sign_in', actor_email: ADMIN });
    expect(after).toEqual({ sign_in_method: 'two_factor', ip: '198.51.100.7', user_agent: 'Mozilla/5.0 (Test) Chrome/156' });
    expect(JSON.stringify(entries)).not.toContain(PASSWORD);

    const logs = await (await admin.get('/api/audit-logs?action=admin.sign_in')).json();
    expect(logs.audit_logs[0]).toMatchObject({ action_label: '管理者のログイン', target_label: 'ユーザー' });
    expect(logs.audit_logs[0].changes).toEqual(
      expect.arrayContaining([
        { field: 'sign_in_method', label: 'ログイン方法', before: null, after: 'パスワードと確認コード' },
        { field: 'ip', label: 'IPアドレス', before: null, after: '198.51.100.7' },
        // The browser as people name it, not the raw User-Agent.
        { field: 'user_agent', label: 'ブラウザ', before: null, after: 'Chrome（不明なOS）' },
      ]),
    );
  });

  it('records failed sign-ins of administrator accounts (password, code) by nobody (不明), not of members or unknown addresses', async () => {
    const since = new Date();
    const stranger = new TestClient(shop.app, '198.51.100.8');
    const wrong = await stranger.request('POST', '/api/login', {
      json: { email: ADMIN, password: 'wrong-password-1' },
      headers: { 'user-agent': 'curl/8' },
    });
    expect(wrong.status).toBe(422);
    expect((await stranger.post('/api/login', { email: 'nobody-here@example.jp', password: 'wrong-password-1' })).status).toBe(
      422,
    );
    const member = await aBuyer('会員', '次郎');
    expect((await stranger.post('/api/login', { email: member.email, password: 'wrong-password-1' })).status).toBe(422);
    // The password right, the code wrong.
    expect((await (await stranger.post('/api/login', { email: ADMIN, password: PASSWORD })).json()).two_factor_required).toBe(
      true,
    );
    expect((await stranger.post('/api/login/two-factor', { code: '000000' })).status).toBe(422);

    const entries = await signInEntries(since);
    const adminId = (await db().execute<{ id: string }[]>('select id from users where email = ?', [ADMIN]))[0]?.id;
    // The caller was signed in as nobody: no actor; the account tried is the subject.
    expect(entries.map((e) => [e.action, e.actor_email, e.target_id, e.after.sign_in_failure])).toEqual([
      ['admin.sign_in_failed', null, adminId, 'password'],
      ['admin.sign_in_failed', null, adminId, 'two_factor'],
    ]);
    expect(entries[0]?.after).toEqual({ sign_in_failure: 'password', ip: '198.51.100.8', user_agent: 'curl/8' });
    expect(JSON.stringify(entries)).not.toContain('wrong-password-1');
    expect(JSON.stringify(entries)).not.toContain('000000');
    const listed = (await (await admin.get('/api/audit-logs?action=admin.sign_in_failed')).json()).audit_logs;
    expect(listed[0]).toMatchObject({ actor_id: null, actor_email: null, target_id: adminId });
    const csv = await (await admin.get('/api/audit-logs/export.csv?action=admin.sign_in_failed')).text();
    expect(csv.split('\r\n')[1]?.split(',')[1]).toBe('不明');
  });
});

describe('GET /api/audit-logs/export.csv', () => {
  it('is the filtered log as a UTF-8 CSV with BOM, in the screen’s words, formula-safe, and audited itself', async () => {
    // Entries whose cells would start a formula in Excel: an id, and a licence's name as the screen shows it.
    const formulaLicense = await aLicense(shop.runtime.deps.orm, { name: '=1+1 講習' });
    const entry = (actor: string, targetId: string) => ({
      id: randomUUID(),
      actor_id: null,
      actor_email: actor,
      action: 'license.update',
      target_type: 'license',
      target_id: targetId,
      before: jsonb({ price: 1000 }),
      after: jsonb({ price: 2000 }),
      created_at: now(),
    });
    await kyselyOf(db())
      .insertInto('audit_logs')
      .values([
        entry('+evil@example.jp', '=HYPERLINK("http://x")'),
        entry('named@example.jp', String(licenseId)),
        entry('named@example.jp', String(formulaLicense)),
      ])
      .execute();
    const res = await admin.get('/api/audit-logs/export.csv?action=license.update');
    expect(res.status, await res.clone().text()).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=UTF-8');
    expect(res.headers.get('content-disposition')).toMatch(
      /^attachment; filename="audit-log_\d{8}-\d{4}\.csv"; filename\*=UTF-8''/,
    );
    expect(decodeURIComponent(res.headers.get('content-disposition')?.split("''")[1] ?? '')).toMatch(
      /^操作履歴_\d{8}-\d{4}\.csv$/,
    );
    const bytes = Buffer.from(await res.arrayBuffer());
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const lines = bytes.subarray(3).toString('utf8').split('\r\n');
    expect(lines[0]).toBe('日時（日本時間）,操作者,操作,対象の種類,対象のID,対象の名前,変更内容,対象の売上（件）');
    const planted = lines.find((line) => line.includes('HYPERLINK')) as string;
    // A record the shop no longer knows is named by its id, as on the screen.
    expect(planted).toMatch(
      /^\d{4}\/\d{2}\/\d{2} \d{2}:\d{2}:\d{2},'\+evil@example\.jp,ライセンスの編集,ライセンス,"'=HYPERLINK\(""http:\/\/x""\)","'=HYPERLINK\(""http:\/\/x""\)","価格: ¥1,000 → ¥2,000",$/,
    );
    expect(lines).toContainEqual(expect.stringContaining(`,ライセンス,${licenseId},ACLS 講習ライセンス,"価格: `));
    expect(lines).toContainEqual(expect.stringContaining(`,ライセンス,${formulaLicense},'=1+1 講習,"価格: `));
    // Only the entries the filter finds.
    expect(
      lines
        .slice(1)
        .filter(Boolean)
        .every((line) => line.includes('ライセンスの編集')),
    ).toBe(true);

    const logs = await (await admin.get('/api/audit-logs?action=audit.export')).json();
    expect(logs.audit_logs[0]).toMatchObject({ action_label: '操作履歴のCSV出力', actor_email: ADMIN });
    expect(logs.audit_logs[0].changes).toEqual(
      expect.arrayContaining([
        { field: 'audit_filters', label: '絞り込み条件', before: null, after: '操作: license.update' },
        { field: 'encoding', label: '文字コード', before: null, after: 'UTF-8' },
      ]),
    );
  });

  it('writes CP932 without BOM when asked; every entry of a big log, across batches', async () => {
    const entries = Array.from({ length: 2_500 }, (_, i) => ({
      id: randomUUID(),
      actor_email: 'bulk@example.jp',
      action: 'user.update',
      target_type: 'user',
      target_id: `u${i}`,
      created_at: millisecondsAgo(i * 1000),
    }));
    await kyselyOf(db()).insertInto('audit_logs').values(entries).execute();
    const res = await admin.get('/api/audit-logs/export.csv?actor=bulk@&encoding=shift_jis');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=Shift_JIS');
    const bytes = Buffer.from(await res.arrayBuffer());
    expect(bytes[0]).not.toBe(0xef);
    const lines = iconv.decode(bytes, 'cp932').split('\r\n').filter(Boolean);
    expect(lines[0]).toBe('日時（日本時間）,操作者,操作,対象の種類,対象のID,対象の名前,変更内容,対象の売上（件）');
    expect(lines).toHaveLength(2_501);
    expect(new Set(lines.slice(1).map((line) => line.split(',')[4])).size).toBe(2_500);
    expect(lines[1]).toContain(',u0,');
    expect(lines.at(-1)).toContain(',u2499,');

    // The name column in CP932 too: what it cannot hold (𠮷) becomes 〓.
    const member = await aMember(shop.runtime.deps.orm, { lastName: '𠮷田', firstName: '花子' });
    await kyselyOf(db())
      .insertInto('audit_logs')
      .values({
        id: randomUUID(),
        actor_email: 'cp932@example.jp',
        action: 'user.update',
        target_type: 'user',
        target_id: member.id,
        created_at: now(),
      })
      .execute();
    const named = await admin.get('/api/audit-logs/export.csv?actor=cp932@&encoding=shift_jis');
    const namedLines = iconv.decode(Buffer.from(await named.arrayBuffer()), 'cp932').split('\r\n');
    expect(namedLines[1]?.split(',').slice(3, 6)).toEqual(['ユーザー', member.id, `〓田 花子（${member.email}）`]);
  });

  it('refuses members (403), strangers (401), bad filters (422) and too many exports (429)', async () => {
    const member = await aBuyer('会員', '三郎');
    expect((await member.client.get('/api/audit-logs/export.csv')).status).toBe(403);
    expect((await new TestClient(shop.app, '10.72.9.9').get('/api/audit-logs/export.csv')).status).toBe(401);
    const reversed = await admin.get('/api/audit-logs/export.csv?from=2026-11-30&to=2026-11-01');
    expect(reversed.status).toBe(422);
    expect((await reversed.json()).errors.to).toEqual(['終了日は開始日と同じか、それより後の日付を指定してください。']);
    expect((await admin.get('/api/audit-logs/export.csv?encoding=latin1')).status).toBe(422);
    const statuses: number[] = [];
    for (let i = 0; i < 20; i++) statuses.push((await admin.get('/api/audit-logs/export.csv?action=nothing.here')).status);
    expect(statuses).toContain(429);
  });
});
