import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DomainEvent } from '../../src/events/contracts.ts';
import { accounts, createOrPromoteAdmin } from '../../src/modules/accounts/index.ts';
import { aLicense, aMember, aSale } from '../support/factories.ts';
import { TestClient } from '../support/http-client.ts';
import { startTestRuntime, type TestRuntime } from '../support/runtime.ts';
import { settled } from '../support/settle.ts';
import { startSmtp, type TestSmtp } from '../support/smtp.ts';
import { eventually } from '../support/wait.ts';

let smtp: TestSmtp;
let t: TestRuntime;
let ipSeq = 0;
const client = () => new TestClient(t.app, `10.77.${Math.floor(++ipSeq / 200)}.${ipSeq % 200}`);
const unique = (name: string) => `${name}-${Date.now()}-${Math.random().toString(36).slice(2, 7)}@example.jp`;
const PASSWORD = 'member-pass-123';
const GOODBYE = '【ライセンスストア】退会手続き完了のお知らせ';

async function member(email = unique('leaver')) {
  const user = await aMember(t.runtime.deps.orm, {
    email,
    password: PASSWORD,
    lastName: '退会',
    affiliationName: '〇〇市消防局',
  });
  const c = client();
  expect((await c.login(email, PASSWORD)).status).toBe(200);
  return { id: user.id, email, client: c };
}

const withdraw = (c: TestClient, id: string, body: unknown) => c.post(`/api/users/${id}/withdrawal`, body);
const db = () => t.runtime.deps.orm.em.fork();

beforeAll(async () => {
  smtp = await startSmtp();
  t = await startTestRuntime({ mode: 'all', smtpUrl: smtp.url });
  await createOrPromoteAdmin(t.runtime.deps.orm, { email: 'withdraw-admin@example.jp', password: 'admin-pass-123' });
});
afterAll(async () => {
  await t?.stop();
  await smtp?.close();
});

describe('POST /api/users/{id}/withdrawal', () => {
  it('refuses a wrong or missing password in Japanese and keeps the account', async () => {
    const a = await member();
    const wrong = await withdraw(a.client, a.id, { password: 'not-my-password' });
    expect(wrong.status).toBe(422);
    expect(await wrong.json()).toEqual({
      message: 'パスワードが正しくありません。',
      errors: { password: ['パスワードが正しくありません。'] },
    });
    const missing = await withdraw(a.client, a.id, {});
    expect(missing.status).toBe(422);
    expect((await missing.json()).errors.password).toEqual(['現在のパスワードを入力してください。']);
    // Whatever a client sends: 400 or 422 in Japanese, never a 5xx, and nothing deleted.
    expect((await withdraw(a.client, a.id, { password: 12345678 })).status).toBe(422);
    expect((await withdraw(a.client, a.id, { password: 'x'.repeat(100) })).status).toBe(422);
    expect((await withdraw(a.client, a.id, { password: 'nul\u0000byte' })).status).toBe(422);
    const malformed = await a.client.request('POST', `/api/users/${a.id}/withdrawal`, {
      body: '{"password":',
      headers: { 'content-type': 'application/json' },
    });
    expect(malformed.status).toBe(400);
    expect((await a.client.get(`/api/users/${a.id}`)).status).toBe(200);
    expect((await client().login(a.email, PASSWORD)).status).toBe(200);
  });

  it('is limited like the password form: 10 tries per 15 minutes, then 429', async () => {
    const a = await member();
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) statuses.push((await withdraw(a.client, a.id, { password: `wrong-${i}-pass` })).status);
    expect(statuses).toEqual([...Array(10).fill(422), 429]);
    // The right password is refused too while the limit holds, and the password form shares it.
    expect((await withdraw(a.client, a.id, { password: PASSWORD })).status).toBe(429);
    const change = await a.client.put(`/api/users/${a.id}/password`, {
      old_password: PASSWORD,
      new_password: 'another-pass-123',
      new_password_confirmation: 'another-pass-123',
    });
    expect(change.status).toBe(429);
  });

  it("answers 401 signed out, 403 for someone else's id (whatever the password), 403 for administrators, without CSRF 419", async () => {
    const a = await member();
    const b = await member();
    expect((await withdraw(client(), a.id, { password: PASSWORD })).status).toBe(401);
    const other = await withdraw(b.client, a.id, { password: PASSWORD });
    expect(other.status).toBe(403);
    expect((await a.client.get(`/api/users/${a.id}`)).status).toBe(200);

    const admin = client();
    const me = (await (await admin.login('withdraw-admin@example.jp', 'admin-pass-123')).json()).users[0];
    // Not even for a member's id: an administrator deletes through the admin screens.
    expect((await withdraw(admin, a.id, { password: PASSWORD })).status).toBe(403);
    const own = await withdraw(admin, me.id, { password: 'admin-pass-123' });
    expect(own.status).toBe(403);
    expect((await own.json()).message).toContain('管理者のアカウントは退会の手続きでは削除できません');
    expect((await admin.get(`/api/users/${me.id}`)).status).toBe(200);

    const forged = await a.client.request('POST', `/api/users/${a.id}/withdrawal`, {
      json: { password: PASSWORD },
      csrf: false,
    });
    expect(forged.status).toBe(419);
    expect((await a.client.get(`/api/users/${a.id}`)).status).toBe(200);
  });

  it('ends every session, removes the personal data, keeps the sales with their snapshot, says goodbye once, audited', async () => {
    const a = await member();
    const phone = client();
    expect((await phone.login(a.email, PASSWORD)).status).toBe(200);
    const license = await aLicense(t.runtime.deps.orm, { name: '退会テスト講習' });
    const stripeSession = `cs_test_withdraw_${Date.now()}`;
    await aSale(t.runtime.deps.orm, license, {
      userId: a.id,
      lastName: '退会',
      email: a.email,
      affiliation: null,
      affiliationName: '〇〇市消防局',
      stripeSessionId: stripeSession,
    });
    // A pending e-mail change: its token and address must go too.
    const pending = unique('pending');
    expect(
      (
        await a.client.put(`/api/users/${a.id}`, {
          email: pending,
          email_confirmation: pending,
          last_name: '退会',
          first_name: '太郎',
          affiliations: 4,
          affiliation_name: '〇〇市消防局',
          distribution: true,
          current_password: PASSWORD,
        })
      ).status,
    ).toBe(200);
    await smtp.waitFor(smtp.to(pending));

    const res = await withdraw(a.client, a.id, { password: PASSWORD });
    expect(res.status).toBe(200);
    expect((await res.json()).message).toContain('退会の手続きが完了しました');
    // This browser's session cookie is cleared with the answer; every other session has ended.
    expect(res.headers.getSetCookie().some((c) => /session_token=;|session_token=[^;]*;.*max-age=0/i.test(c))).toBe(true);
    expect((await (await a.client.get('/api/login')).json()).users).toEqual([]);
    expect((await (await phone.get('/api/login')).json()).users).toEqual([]);
    expect((await phone.get(`/api/users/${a.id}`)).status).toBe(401);
    expect((await client().login(a.email, PASSWORD)).status).toBe(422);

    const [users, credentials, tokens, sessions] = await Promise.all(
      ['users where id = ?', 'accounts where user_id = ?', 'account_tokens where user_id = ?', 'sessions where user_id = ?'].map(
        async (from) => (await db().execute(`select count(*)::int as n from ${from}`, [a.id]))[0]?.n,
      ),
    );
    expect({ users, credentials, tokens, sessions }).toEqual({ users: 0, credentials: 0, tokens: 0, sessions: 0 });
    const admin = client();
    await admin.login('withdraw-admin@example.jp', 'admin-pass-123');
    expect((await admin.get(`/api/users/${a.id}`)).status).toBe(404);
    expect((await (await admin.get(`/api/users?email=${encodeURIComponent(a.email)}`)).json()).total).toBe(0);

    // The sale stays for accounting, with who bought it at the time, no longer linked to an account.
    const sale = await eventually(
      async () => {
        const rows = await db().execute<{ user_id: string | null }[]>(
          'select user_id, buyer_email, buyer_last_name, buyer_affiliation_name, amount from sales where stripe_session_id = ?',
          [stripeSession],
        );
        return rows[0]?.user_id === null && rows[0];
      },
      10_000,
      'UserDeleted to reach the sales module',
    );
    expect(sale).toEqual({
      user_id: null,
      buyer_email: a.email,
      buyer_last_name: '退会',
      buyer_affiliation_name: '〇〇市消防局',
      amount: 11000,
    });

    // The goodbye e-mail reaches the address the account had, once.
    const goodbye = await smtp.waitFor((m) => smtp.to(a.email)(m) && m.subject === GOODBYE);
    expect(goodbye.text).toContain('退会 太郎 様');
    expect(goodbye.text).toContain('会員情報（氏名、メールアドレス、所属、パスワード）は削除しました');
    expect(goodbye.text).toContain('ご購入の記録');
    const [event] = await db().execute<{ id: string; payload: DomainEvent<'MemberWithdrew'>['payload']; occurred_at: Date }[]>(
      "select id, payload, occurred_at from outbox_events where name = 'MemberWithdrew' and payload->>'userId' = ?",
      [a.id],
    );
    expect(event?.payload).toEqual({ userId: a.id, email: a.email, name: '退会 太郎' });
    const replay: DomainEvent<'MemberWithdrew'> = {
      id: event?.id as string,
      name: 'MemberWithdrew',
      occurredAt: new Date(event?.occurred_at ?? Date.now()).toISOString(),
      payload: event?.payload as DomainEvent<'MemberWithdrew'>['payload'],
    };
    // The job run again (a retry, or BullMQ having forgotten it): still one e-mail.
    expect(await accounts.handlers.MemberWithdrew(t.runtime.jobContext(), replay)).toBe('skipped');
    await t.runtime.deps.queues.mail.add('MemberWithdrew', replay, { jobId: `${replay.id}-again` });
    await settled(t.runtime.deps, 'the job run again');
    expect(smtp.messages.filter((m) => smtp.to(a.email)(m) && m.subject === GOODBYE)).toHaveLength(1);
    const deliveries = await db().execute(
      "select user_id, status from mail_deliveries where template = 'withdrawal' and recipient = ?",
      [a.email],
    );
    expect(deliveries).toEqual([{ user_id: null, status: 'sent' }]);

    // Audited as the member's own act, without the profile they asked us to erase.
    const log = await (await admin.get(`/api/audit-logs?action=user.withdraw&target_type=user&target_id=${a.id}`)).json();
    expect(log.total).toBe(1);
    expect(log.audit_logs[0]).toMatchObject({ action: 'user.withdraw', action_label: '退会', actor_email: a.email });
    const stored = await db().execute(
      'select actor_id, actor_email, before, after from audit_logs where action = ? and target_id = ?',
      ['user.withdraw', a.id],
    );
    expect(stored).toEqual([{ actor_id: a.id, actor_email: a.email, before: null, after: null }]);

    // The address is free again: a new registration starts afresh.
    const again = await client().post('/api/users/registration', {
      email: a.email,
      email_confirmation: a.email,
      last_name: '再',
      first_name: '登録',
      affiliations: 4,
      affiliation_name: '〇〇市消防局',
      password: 'fresh-pass-123',
      password_confirmation: 'fresh-pass-123',
    });
    expect(again.status).toBe(200);
    await smtp.waitFor((m) => smtp.to(a.email)(m) && m.subject === '【ライセンスストア】メールアドレスの確認をお願いします');
  });
});
