import { randomUUID } from 'node:crypto';
import type { ParsedMail } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { db as kyselyOf, now } from '../../src/db/kysely.ts';
import type { Logger } from '../../src/lib/logger.ts';
import { createOrPromoteAdmin } from '../../src/modules/accounts/index.ts';
import { createLicense } from '../../src/modules/licenses/index.ts';
import { aMember } from '../support/factories.ts';
import { TestClient } from '../support/http-client.ts';
import { freePort } from '../support/ports.ts';
import { startTestRuntime, type TestRuntime } from '../support/runtime.ts';
import { settled } from '../support/settle.ts';
import { startSmtp, type TestSmtp } from '../support/smtp.ts';
import {
  buyThroughStripe,
  type ShopWithStripe,
  startShopWithStripe,
  TEST_STRIPE_KEY,
  TEST_WEBHOOK_SECRET,
} from '../support/stripe.ts';
import { eventually } from '../support/wait.ts';

/** What the runtime logs, kept to be read (levels, messages and fields; bindings merged in). */
interface Line {
  level: 'debug' | 'info' | 'warn' | 'error';
  msg: string;
  fields: Record<string, unknown>;
}
function captureLog(lines: Line[], bindings: Record<string, unknown> = {}): Logger {
  const at =
    (level: Line['level']) =>
    (msg: string, fields: Record<string, unknown> = {}) =>
      void lines.push({ level, msg, fields: { ...bindings, ...fields } });
  return {
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
    child: (more) => captureLog(lines, { ...bindings, ...more }),
  };
}

let shop: ShopWithStripe;
let smtp: TestSmtp;
let admin: TestClient;
let member: TestClient;
let adminId: string;
let secondAdminId: string;
let licenseId: number;
let seq = 0;
const lines: Line[] = [];

const ADMIN = 'attention-admin@example.jp';
const SECOND_ADMIN = 'attention-admin2@example.jp';
const MEMBER = 'attention-member@example.jp';

beforeAll(async () => {
  smtp = await startSmtp();
  shop = await startShopWithStripe({ smtpUrl: smtp.url, log: captureLog(lines) });
  const { orm, files } = shop.runtime.deps;
  licenseId = (
    await createLicense(
      orm,
      files,
      { id: 'test', email: 'test' },
      { name: 'ACLS 講習ライセンス', description: '', price: 8800 },
      [],
    )
  ).id;
  await createOrPromoteAdmin(orm, { email: ADMIN, password: 'admin-pass-123' });
  await createOrPromoteAdmin(orm, { email: SECOND_ADMIN, password: 'admin-pass-456' });
  const ids = await db().execute<{ id: string; email: string }[]>('select id, email from users where role = ?', ['admin']);
  adminId = ids.find((u) => u.email === ADMIN)?.id as string;
  secondAdminId = ids.find((u) => u.email === SECOND_ADMIN)?.id as string;
  await newMember(MEMBER);
  admin = new TestClient(shop.app, '10.41.0.1');
  expect((await admin.login(ADMIN, 'admin-pass-123')).status).toBe(200);
  member = new TestClient(shop.app, '10.41.0.2');
  expect((await member.login(MEMBER, 'member-pass-123')).status).toBe(200);
}, 90_000);
afterAll(async () => {
  await shop?.stop();
  await smtp?.close();
});

const db = () => shop.runtime.deps.orm.em.fork();

async function newMember(email: string, verified = true) {
  return aMember(shop.runtime.deps.orm, {
    email,
    password: 'member-pass-123',
    lastName: '注意',
    firstName: `花子${++seq}`,
    emailVerified: verified,
    affiliation: 2,
    affiliationName: '〇〇病院',
  });
}

const summary = async () => {
  const res = await admin.get('/api/mails/summary');
  expect(res.status, await res.clone().text()).toBe(200);
  return ((await res.json()) as { summary: { failed_for_good: number; stuck: number; retrying: number } }).summary;
};

describe('mail on the admin menu', () => {
  it('counts mail failed for good and mail stuck past its lease, from the database, moving as it happens and is resolved', async () => {
    expect((await member.get('/api/mails/summary')).status).toBe(403);
    expect((await new TestClient(shop.app, '10.41.0.3').get('/api/mails/summary')).status).toBe(401);
    expect((await admin.get('/api/mails?status=nonsense')).status).toBe(422);
    expect(await summary()).toMatchObject({ failed_for_good: 0, stuck: 0 });

    // The mail server refuses a member's mailbox (550): the verification e-mail fails for good.
    const refused = 'attention-refused@example.jp';
    smtp.refuse(refused);
    const user = await newMember(refused, false);
    await eventually(async () => (await summary()).failed_for_good === 1, 15_000, 'a mail failed for good');
    const [failed] = await db().execute<{ id: string }[]>('select id from mail_deliveries where recipient = ?', [refused]);
    // Logged at warn with the ids to act on, never the address or the name.
    const warning = lines.find((l) => l.level === 'warn' && l.msg === 'mail refused for good by the mail server');
    expect(warning?.fields).toMatchObject({ delivery: failed?.id, userId: user.id, template: 'verification' });
    expect(JSON.stringify(warning)).not.toContain(refused);
    expect(JSON.stringify(warning)).not.toContain('注意');

    // Another member's e-mail was claimed by a worker that died 10 minutes ago: stuck past its lease.
    const stuckMember = await newMember('attention-stuck@example.jp', false);
    const first = await smtp.waitFor(smtp.to('attention-stuck@example.jp'));
    await eventually(
      async () =>
        (await db().execute("select 1 from mail_deliveries where user_id = ? and status = 'sent'", [stuckMember.id])).length ===
        1,
      15_000,
      'the mail marked sent',
    );
    await db().execute(
      `update mail_deliveries set status = 'sending', sent_at = null, claimed_at = now() - interval '10 minutes'
       where user_id = ?`,
      [stuckMember.id],
    );
    // One claimed moments ago is being sent, not stuck.
    await db().execute(`update mail_deliveries set status = 'sending', claimed_at = now() where id = ?`, [failed?.id]);
    expect(await summary()).toMatchObject({ failed_for_good: 0, stuck: 1 });
    await db().execute(`update mail_deliveries set status = 'failed', claimed_at = null where id = ?`, [failed?.id]);
    expect(await summary()).toMatchObject({ failed_for_good: 1, stuck: 1 });

    // The figures live in the database: BullMQ's mail queue wiped out changes nothing.
    await shop.runtime.deps.queues.mail.obliterate({ force: true });
    expect(await summary()).toMatchObject({ failed_for_good: 1, stuck: 1 });

    // The stuck one is listed where it is handled, and resent from there (same Message-ID).
    const stuckList = await (await admin.get('/api/mails?status=stuck')).json();
    expect(stuckList.total).toBe(1);
    expect(stuckList.mails[0]).toMatchObject({ user_id: stuckMember.id, status: 'sending' });
    const resent = await admin.post(`/api/mails/${stuckList.mails[0].id}/resend`, {});
    expect(resent.status, await resent.clone().text()).toBe(200);
    expect((await summary()).stuck).toBe(0);
    await eventually(async () => smtp.messages.filter(smtp.to('attention-stuck@example.jp')).length === 2, 15_000, 'resent');
    expect(smtp.messages.filter(smtp.to('attention-stuck@example.jp')).every((m) => m.messageId === first.messageId)).toBe(true);

    // The refused mailbox is fixed and the mail resent: nothing failed for good any more.
    smtp.accept(refused);
    expect((await admin.post(`/api/mails/${failed?.id}/resend`, {})).status).toBe(200);
    await smtp.waitFor(smtp.to(refused));
    await eventually(async () => (await summary()).failed_for_good === 0, 15_000, 'the failure resolved');
    expect(await summary()).toMatchObject({ failed_for_good: 0, stuck: 0 });
  });
});

async function payer() {
  const email = `attention-payer${++seq}@example.jp`;
  await newMember(email);
  const client = new TestClient(shop.app, `10.41.1.${seq}`);
  expect((await client.login(email, 'member-pass-123')).status).toBe(200);
  return client;
}

async function purchase() {
  const res = await (await payer()).post('/api/licenses/stripe', { licenseId, distribution: true });
  expect(res.status).toBe(200);
  return new URL((await res.json()).url).pathname.split('/').pop() as string;
}

async function reconcileNow() {
  const res = await admin.post('/api/payments/reconciliations', { days: 1 });
  expect(res.status, await res.clone().text()).toBe(202);
  const { reconciliation } = await res.json();
  await eventually(
    async () =>
      (await (await admin.get(`/api/payments/reconciliations/${reconciliation.id}`)).json()).reconciliation.state === 'done',
    20_000,
    'the reconciliation run',
  );
  return reconciliation.id as string;
}

const digestsTo = (address: string, about: string) =>
  smtp.messages.filter((m) => smtp.to(address)(m) && /決済の照合/.test(m.subject ?? '') && (m.text ?? '').includes(about));

const flagged = async () => {
  const res = await admin.get('/api/payments/reconciliations?unacknowledged=true');
  expect(res.status).toBe(200);
  return (await res.json()) as { reconciliations: { id: string; needs_attention: boolean; findings: number }[]; total: number };
};

describe('reconciliation findings reach the administrators', () => {
  it('one digest per run to each administrator with the findings; shown until marked 確認済み (audited)', async () => {
    // Paid at Stripe, the webhook never arrived; and a sale whose amount Stripe reports differently.
    const lost = await purchase();
    shop.emulator.hold();
    shop.emulator.pay(lost);
    await shop.emulator.release([]);
    const { sessionId: changed } = await buyThroughStripe(shop, await payer(), licenseId);
    shop.emulator.patchSession(changed, { amount_total: 100 });

    const runId = await reconcileNow();
    const [mailA, mailB] = await Promise.all([
      smtp.waitFor((m) => digestsTo(ADMIN, lost).includes(m)),
      smtp.waitFor((m) => digestsTo(SECOND_ADMIN, lost).includes(m)),
    ]);
    for (const mail of [mailA, mailB] as ParsedMail[]) {
      expect(mail.subject).toMatch(/決済の照合で差異が\d+件見つかりました/);
      const text = mail.text ?? '';
      expect(text).toContain('（日本時間）');
      expect(text).toContain('支払い済みなのに売上がない');
      expect(text).toContain('金額・通貨の不一致');
      expect(text).toContain(`Checkout Session ${lost}`);
      expect(text).toMatch(/売上ID \d+/);
      expect(text).not.toContain('売上 #');
      expect(text).toContain('対応のしかた');
      expect(text).toContain(`${shop.baseUrl}/admin/payments`);
    }
    // Each administrator's digest is in their own mail log; members get none.
    const deliveries = await db().execute<{ user_id: string }[]>(
      "select user_id from mail_deliveries where template = 'reconciliation-digest' order by user_id",
    );
    expect(deliveries.map((d) => d.user_id).sort()).toEqual([adminId, secondAdminId].sort());
    expect(smtp.messages.some((m) => smtp.to(MEMBER)(m) && /照合/.test(m.subject ?? ''))).toBe(false);

    // Logged at warn with the ids to act on.
    const warning = lines.find((l) => l.level === 'warn' && l.msg === 'payment reconciliation found differences');
    expect(warning?.fields).toMatchObject({ runId });
    expect(warning?.fields.sessions).toEqual(expect.arrayContaining([lost, changed]));
    expect(warning?.fields.sales).toEqual(expect.arrayContaining([expect.any(Number)]));

    // On the admin menu until acknowledged.
    const before = await flagged();
    expect(before.reconciliations.find((r) => r.id === runId)).toMatchObject({ needs_attention: true });

    // Bad input, unknown ids, members and requests without the CSRF token are refused.
    const ack = `/api/payments/reconciliations/${runId}/acknowledge`;
    const bad = await admin.post(ack, { note: 123 });
    expect(bad.status).toBe(422);
    expect((await bad.json()).errors.note[0]).toBe('メモは文字で入力してください。');
    expect((await admin.post(ack, { note: 'あ'.repeat(501) })).status).toBe(422);
    expect((await admin.post('/api/payments/reconciliations/00000000-0000-4000-8000-000000000000/acknowledge', {})).status).toBe(
      404,
    );
    expect((await admin.post('/api/payments/reconciliations/not-a-run/acknowledge', {})).status).toBe(404);
    expect((await member.post(ack, {})).status).toBe(403);
    expect((await admin.request('POST', ack, { json: {}, csrf: false })).status).toBe(419);
    expect((await flagged()).reconciliations.some((r) => r.id === runId)).toBe(true);

    const done = await admin.post(ack, { note: 'Webhook を再実行しました' });
    expect(done.status, await done.clone().text()).toBe(200);
    expect(await done.json()).toMatchObject({
      message: '確認済みにしました。',
      reconciliation: { id: runId, needs_attention: false, acknowledged_by: ADMIN },
    });
    expect((await flagged()).reconciliations.some((r) => r.id === runId)).toBe(false);
    // Twice is harmless: one audit entry.
    expect(await (await admin.post(ack, {})).json()).toMatchObject({ message: 'すでに確認済みです。' });
    const audit = await db().execute<{ n: number }[]>(
      "select count(*)::int as n from audit_logs where action = 'reconciliation.acknowledge' and target_id = ?",
      [runId],
    );
    expect(audit[0]?.n).toBe(1);

    // Still one digest each for that run; the next run (the differences remain) sends its own.
    await settled(shop.runtime.deps, 'the acknowledgement');
    expect(digestsTo(ADMIN, lost)).toHaveLength(1);
    expect(digestsTo(SECOND_ADMIN, lost)).toHaveLength(1);
    const second = await reconcileNow();
    expect(second).not.toBe(runId);
    await eventually(
      async () => digestsTo(ADMIN, lost).length === 2 && digestsTo(SECOND_ADMIN, lost).length === 2,
      15_000,
      'digests',
    );
    await settled(shop.runtime.deps, 'the second run');
    expect(digestsTo(ADMIN, lost)).toHaveLength(2);
    expect((await flagged()).reconciliations.map((r) => r.id)).toContain(second);
  });

  it('a run with nothing to look at cannot be acknowledged (409)', async () => {
    const row = await kyselyOf(db())
      .insertInto('reconciliation_runs')
      .values({ id: randomUUID(), trigger: 'manual', days: 1, state: 'done', findings: 0, created_at: now(), finished_at: now() })
      .returning('id')
      .executeTakeFirst();
    const res = await admin.post(`/api/payments/reconciliations/${row?.id}/acknowledge`, {});
    expect(res.status).toBe(409);
    expect((await res.json()).message).toBe('この照合には確認が必要な差異や失敗がありません。');
  });
});

describe('a failing reconciliation reaches the administrators', () => {
  let broken: TestRuntime;
  const brokenLines: Line[] = [];
  afterAll(async () => {
    await broken?.stop();
  });

  it('sends one failure digest however often the run is retried, and logs each failure at error', async () => {
    const deadPort = await freePort();
    broken = await startTestRuntime({
      mode: 'all',
      smtpUrl: smtp.url,
      log: captureLog(brokenLines),
      env: {
        STRIPE_SECRET_KEY: TEST_STRIPE_KEY,
        STRIPE_WEBHOOK_SECRET: TEST_WEBHOOK_SECRET,
        STRIPE_API_URL: `http://127.0.0.1:${deadPort}`,
      },
    });
    await createOrPromoteAdmin(broken.runtime.deps.orm, { email: 'broken-admin@example.jp', password: 'admin-pass-789' });
    const client = new TestClient(broken.app, '10.41.2.1');
    expect((await client.login('broken-admin@example.jp', 'admin-pass-789')).status).toBe(200);
    const res = await client.post('/api/payments/reconciliations', { days: 1 });
    expect(res.status).toBe(202);
    const runId = (await res.json()).reconciliation.id as string;

    const mail = await smtp.waitFor((m) => smtp.to('broken-admin@example.jp')(m) && !m.subject?.includes('二段階認証'), 30_000);
    expect(mail.subject).toContain('決済の照合に失敗しました');
    expect(mail.text).toContain('（日本時間）');
    expect(mail.text).toContain('エラー：');
    expect(mail.text).toContain('/admin/payments');

    // Retried (the run fails again and again): still one digest, each failure logged at error with the run.
    await eventually(
      async () => brokenLines.filter((l) => l.level === 'error' && l.msg === 'payment reconciliation failed').length >= 2,
      30_000,
      'a retried failure',
    );
    expect(brokenLines.find((l) => l.msg === 'payment reconciliation failed')?.fields).toMatchObject({ runId });
    // Every digest event recorded so far has been handled (the run itself keeps failing, so the whole
    // shop never settles): a second digest would be here.
    await eventually(
      async () => {
        const [row] = await broken.runtime.deps.orm.em
          .fork()
          .execute<{ n: number }[]>(
            "select count(*)::int as n from outbox_events where name = 'ReconciliationFlagged' and handled_at is null",
          );
        return row?.n === 0;
      },
      15_000,
      'the digest events handled',
    );
    expect(smtp.messages.filter((m) => smtp.to('broken-admin@example.jp')(m) && !m.subject?.includes('二段階認証'))).toHaveLength(
      1,
    );

    const list = await (await client.get('/api/payments/reconciliations?unacknowledged=true')).json();
    expect(list.reconciliations.map((r: { id: string }) => r.id)).toContain(runId);
    const ack = await client.post(`/api/payments/reconciliations/${runId}/acknowledge`, {});
    expect(ack.status).toBe(200);
    const after = await (await client.get('/api/payments/reconciliations?unacknowledged=true')).json();
    expect(after.total).toBe(0);
  }, 90_000);
});
