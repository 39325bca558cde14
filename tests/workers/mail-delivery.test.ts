import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EnvError, loadEnv } from '../../src/config/env.ts';
import type { DomainEvent } from '../../src/events/contracts.ts';
import { cappedBackoff, defaultJobOptions, RETRY, retryDelayMs } from '../../src/events/queues.ts';
import { accounts, createOrPromoteAdmin } from '../../src/modules/accounts/index.ts';
import { CLAIM_LEASE_SECONDS, isPermanentSmtpError, MailInFlightError, messageIdFor } from '../../src/modules/mail/index.ts';
import { aMember } from '../support/factories.ts';
import { TestClient } from '../support/http-client.ts';
import { startTestRuntime, type TestRuntime } from '../support/runtime.ts';
import { settled } from '../support/settle.ts';
import { startSmtp, type TestSmtp } from '../support/smtp.ts';
import { eventually } from '../support/wait.ts';

const onUserRegistered = accounts.handlers.UserRegistered;

let smtp: TestSmtp;
let t: TestRuntime;
let admin: TestClient;
let seq = 0;
const address = (label: string) => `${label}-${++seq}-${Date.now()}@example.jp`;

interface DeliveryRow {
  id: string;
  key: string;
  status: string;
  permanent: boolean;
  attempts: number;
  error: string | null;
  message_id: string | null;
  sent_at: Date | null;
  failed_at: Date | null;
  claimed_at: Date | null;
}

const delivery = async (recipient: string): Promise<DeliveryRow | undefined> =>
  (
    await t.runtime.deps.orm.em
      .fork()
      .execute<DeliveryRow[]>(
        'select id, key, status, permanent, attempts, error, message_id, sent_at, failed_at, claimed_at from mail_deliveries where recipient = ?',
        [recipient],
      )
  )[0];

/** A member whose registration sends the verification e-mail through the outbox and the mail worker. */
const register = (email: string) =>
  aMember(t.runtime.deps.orm, { email, password: 'member-pass-123', lastName: '配信', firstName: '確認', emailVerified: false });

/** A member created verified (no event), then unverified: only the test's own runs send to them. */
async function quietMember(email: string) {
  const { orm } = t.runtime.deps;
  const user = await aMember(orm, {
    email,
    password: 'member-pass-123',
    lastName: '手動',
    firstName: '実行',
    emailVerified: true,
  });
  await orm.em.fork().execute('update users set email_verified = false where id = ?', [user.id]);
  const event: DomainEvent<'UserRegistered'> = {
    id: crypto.randomUUID(),
    name: 'UserRegistered',
    occurredAt: new Date().toISOString(),
    payload: { userId: user.id },
  };
  return { user, event };
}

const to = (email: string) => smtp.messages.filter(smtp.to(email));

beforeAll(async () => {
  smtp = await startSmtp();
  // Short SMTP limits through SMTP_URL's query (the product's default is 30 s each).
  const url = `${smtp.url}?connectionTimeout=1500&greetingTimeout=1500&socketTimeout=1500`;
  t = await startTestRuntime({ mode: 'all', smtpUrl: url });
  await createOrPromoteAdmin(t.runtime.deps.orm, { email: 'postmaster@example.jp', password: 'postmaster-pass-123' });
  admin = new TestClient(t.app, '10.61.0.1');
  await admin.login('postmaster@example.jp', 'postmaster-pass-123');
});
afterAll(async () => {
  await t?.stop();
  await smtp?.close();
});

describe('retry budgets', () => {
  it('retry temporary failures with doubling delays capped at 5 minutes, for 24 hours or more', () => {
    expect(defaultJobOptions.backoff).toEqual({ type: 'capped', delay: RETRY.firstDelayMs });
    expect(retryDelayMs(1)).toBe(2_000);
    expect(retryDelayMs(2)).toBe(4_000);
    expect(retryDelayMs(500)).toBe(5 * 60_000);
    const attempts = defaultJobOptions.attempts ?? 1;
    let waited = 0;
    for (let n = 1; n < attempts; n++) waited += retryDelayMs(n);
    expect(waited).toBeGreaterThanOrEqual(24 * 3600_000);
    expect(waited).toBeLessThan(25 * 3600_000);
    // ±20 % jitter around the capped delay.
    for (let i = 0; i < 50; i++) {
      const delay = cappedBackoff()(100);
      expect(delay).toBeGreaterThanOrEqual(240_000);
      expect(delay).toBeLessThanOrEqual(360_000);
    }
  });

  it('JOB_RETRY_MAX_DELAY_SECONDS shortens the cap (the fault suite uses seconds)', () => {
    expect(loadEnv({}).jobRetryMaxDelayMs).toBe(300_000);
    expect(loadEnv({ JOB_RETRY_MAX_DELAY_SECONDS: '5' }).jobRetryMaxDelayMs).toBe(5_000);
    expect(() => loadEnv({ JOB_RETRY_MAX_DELAY_SECONDS: '0' })).toThrow(EnvError);
    expect(() => loadEnv({ JOB_RETRY_MAX_DELAY_SECONDS: '90000' })).toThrow(/JOB_RETRY_MAX_DELAY_SECONDS/);
    expect(retryDelayMs(10, 5_000)).toBe(5_000);
  });
});

describe('which SMTP failures are permanent', () => {
  it('5xx to the recipient or the message only; 4xx, timeouts and 5xx to our sign-in or sender are retried', () => {
    const smtpError = (responseCode: number | undefined, command: string, code = 'EENVELOPE') =>
      Object.assign(new Error('smtp'), { responseCode, command, code });
    expect(isPermanentSmtpError(smtpError(550, 'RCPT TO'))).toBe(true);
    expect(isPermanentSmtpError(smtpError(554, 'DATA', 'EMESSAGE'))).toBe(true);
    expect(isPermanentSmtpError(smtpError(451, 'RCPT TO'))).toBe(false);
    expect(isPermanentSmtpError(smtpError(421, 'CONN', 'EPROTOCOL'))).toBe(false);
    expect(isPermanentSmtpError(smtpError(535, 'AUTH PLAIN', 'EAUTH'))).toBe(false);
    expect(isPermanentSmtpError(smtpError(553, 'MAIL FROM'))).toBe(false);
    expect(isPermanentSmtpError(smtpError(undefined, 'CONN', 'ETIMEDOUT'))).toBe(false);
    expect(isPermanentSmtpError(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNECTION' }))).toBe(false);
  });
});

describe('mail delivery: at least once, one Message-ID per delivery', () => {
  it('SMTP 451, then accepted: retried by the job and sent once, with the delivery’s Message-ID', async () => {
    const email = address('greylisted');
    smtp.defer(email);
    const registeredAt = new Date();
    const user = await register(email);
    const failed = await eventually(async () => {
      const row = await delivery(email);
      return row?.status === 'failed' && row;
    });
    expect(failed).toMatchObject({ permanent: false, sent_at: null, claimed_at: null });
    expect(failed.error).toMatch(/451/);
    expect(to(email)).toHaveLength(0);

    smtp.accept(email);
    const sent = await eventually(
      async () => {
        const row = await delivery(email);
        return row?.status === 'sent' && row;
      },
      20_000,
      'the retry after 451',
    );
    expect(sent.attempts).toBeGreaterThanOrEqual(2);
    expect(sent).toMatchObject({ error: null, permanent: false });
    // The message arrived, and its job (the retry) has finished: a second copy would be here by now.
    await eventually(async () => to(email).length > 0, 5_000, 'the message at the server');
    await settled(t.runtime.deps, 'the retried mail job', { since: registeredAt });
    const copies = to(email);
    expect(copies).toHaveLength(1);
    const expected = messageIdFor(sent.key, t.env.mailFrom);
    expect(expected).toMatch(/^<[0-9a-f]{64}@example\.jp>$/);
    expect(copies[0]?.messageId).toBe(expected);
    expect(sent.message_id).toBe(expected);
    expect(sent.key.startsWith(`${(await outboxEventOf(user.id)) ?? '?'}:`)).toBe(true);
  });

  it('SMTP 550: failed for good at once with the server’s answer, no retry; listed as failed; resent by an operator', async () => {
    const email = address('refused');
    smtp.refuse(email);
    const user = await register(email);
    const failed = await eventually(async () => {
      const row = await delivery(email);
      return row?.status === 'failed' && row;
    });
    expect(failed).toMatchObject({ permanent: true, attempts: 1, sent_at: null });
    expect(failed.error).toMatch(/550 5\.1\.1 .*mailbox unavailable/);

    // The job stopped at once (UnrecoverableError), after one attempt.
    const eventId = failed.key.split(':')[0] as string;
    const job = await t.runtime.deps.queues.mail.getJob(eventId);
    await eventually(async () => (await job?.getState()) === 'failed', 5_000, 'the job to fail');
    const fresh = await t.runtime.deps.queues.mail.getJob(eventId);
    // BullMQ moves a job to failed only when no attempt is left (a retry waits as delayed): nothing is tried again.
    expect(fresh?.attemptsMade).toBe(1);
    expect(await fresh?.getState()).toBe('failed');
    expect(await delivery(email)).toMatchObject({ status: 'failed', attempts: 1 });

    // The member's mail log and the failed-mail view show it, with the server's answer.
    const log = await (await admin.get(`/api/users/${user.id}/mails`)).json();
    expect(log.mails[0]).toMatchObject({ id: failed.id, status: 'failed', permanent: true, attempts: 1 });
    expect(log.mails[0].error).toMatch(/550/);
    const view = await (await admin.get('/api/mails?status=failed')).json();
    expect(view).toMatchObject({ page: 1, per_page: 20 });
    const listed = view.mails.find((m: { id: string }) => m.id === failed.id);
    expect(listed).toMatchObject({
      kind: 'verification',
      kind_label: 'メールアドレスの確認',
      recipient: email,
      status: 'failed',
      permanent: true,
      user_id: user.id,
      message_id: failed.message_id,
    });

    // The mailbox is fixed; the operator resends: the same Message-ID, sent once, audited.
    smtp.accept(email);
    const resent = await admin.post(`/api/mails/${failed.id}/resend`);
    expect(resent.status).toBe(200);
    expect((await resent.json()).message).toBe('メールの再送信を受け付けました。まもなく送信されます。');
    const mail = await smtp.waitFor(smtp.to(email));
    expect(mail.messageId).toBe(failed.message_id);
    const sent = await eventually(async () => {
      const row = await delivery(email);
      return row?.status === 'sent' && row;
    });
    expect(sent).toMatchObject({ attempts: 2, permanent: false, error: null });
    expect(to(email)).toHaveLength(1);
    const audit = await (await admin.get(`/api/audit-logs?target_type=mail&target_id=${failed.id}`)).json();
    expect(audit.audit_logs[0]).toMatchObject({
      action: 'mail.resend',
      action_label: 'メールの再送信',
      actor_email: 'postmaster@example.jp',
    });

    // Sent now: no second resend, and it has left the failed view.
    const again = await admin.post(`/api/mails/${failed.id}/resend`);
    expect(again.status).toBe(409);
    expect((await again.json()).message).toBe('このメールは送信済みです。');
    const after = await (await admin.get('/api/mails?status=failed')).json();
    expect(after.mails.some((m: { id: string }) => m.id === failed.id)).toBe(false);
  });

  it('a crash after SMTP accepted (a stale claim): the next attempt sends again with the same Message-ID; a live claim is left alone', async () => {
    const email = address('crash');
    const { event } = await quietMember(email);
    const ctx = () => ({ ...t.runtime.jobContext(), event });
    expect(await onUserRegistered(ctx(), event)).toBe('done');
    const first = await smtp.waitFor(smtp.to(email));
    const key = `${event.id}:verification`;

    // The worker claimed, SMTP accepted, and it died before marking the row sent — moments ago:
    // another attempt must not send while that claim may still be alive.
    await t.runtime.deps.orm.em
      .fork()
      .execute("update mail_deliveries set status = 'sending', sent_at = null, claimed_at = now() where key = ?", [key]);
    const inFlight = await onUserRegistered(ctx(), event).catch((error: unknown) => error);
    expect(inFlight).toBeInstanceOf(MailInFlightError);
    // Its job is retried just after the claim runs out, not on the usual back-off.
    const after = (inFlight as MailInFlightError).retryAfterMs;
    expect(after).toBeGreaterThan((CLAIM_LEASE_SECONDS - 5) * 1000);
    expect(after).toBeLessThanOrEqual((CLAIM_LEASE_SECONDS + 2) * 1000);
    expect(cappedBackoff()(1, 'capped', inFlight as Error)).toBe(after);
    expect(to(email)).toHaveLength(1);

    // The claim is older than the lease: the worker is taken for dead and the e-mail goes again.
    await t.runtime.deps.orm.em
      .fork()
      .execute("update mail_deliveries set claimed_at = now() - interval '1 hour' where key = ?", [key]);
    expect(await onUserRegistered(ctx(), event)).toBe('done');
    await eventually(async () => to(email).length === 2, 5_000, 'the second copy');
    const [a, b] = to(email);
    expect(a?.messageId).toBe(messageIdFor(key, t.env.mailFrom));
    expect(b?.messageId).toBe(a?.messageId);
    expect(first.messageId).toBe(a?.messageId);
    // The same link in both copies: the token is derived from the delivery key.
    expect(b?.text).toBe(a?.text);
    expect(await delivery(email)).toMatchObject({ status: 'sent', attempts: 2 });

    // Sent: another run skips.
    expect(await onUserRegistered(ctx(), event)).toBe('skipped');
    expect(to(email)).toHaveLength(2);
  });

  it('a hung SMTP server costs the socket timeout, not minutes, and is retried as temporary', async () => {
    const email = address('hung');
    const { event } = await quietMember(email);
    smtp.hang(email);
    const started = Date.now();
    await expect(onUserRegistered({ ...t.runtime.jobContext(), event }, event)).rejects.toThrow(/timeout/i);
    expect(Date.now() - started).toBeLessThan(8_000);
    const row = await delivery(email);
    expect(row).toMatchObject({ status: 'failed', permanent: false, attempts: 1, claimed_at: null });
    expect(row?.error).toMatch(/timeout/i);

    smtp.accept(email);
    expect(await onUserRegistered({ ...t.runtime.jobContext(), event }, event)).toBe('done');
    expect(await delivery(email)).toMatchObject({ status: 'sent', attempts: 2 });
  });
});

describe('GET /api/mails and POST /api/mails/{id}/resend', () => {
  it('are for administrators; bad filters are 422 in Japanese; unknown ids 404; a mail being sent is 409', async () => {
    const member = new TestClient(t.app, '10.61.0.2');
    const email = address('guard');
    await aMember(t.runtime.deps.orm, {
      email,
      password: 'member-pass-123',
      lastName: '一般',
      firstName: '会員',
      emailVerified: true,
    });
    await member.login(email, 'member-pass-123');
    expect((await member.get('/api/mails?status=failed')).status).toBe(403);
    expect((await new TestClient(t.app).get('/api/mails?status=failed')).status).toBe(401);
    const someone = crypto.randomUUID();
    expect((await member.post(`/api/mails/${someone}/resend`)).status).toBe(403);

    const bad = await admin.get('/api/mails?status=sent&per_page=101');
    expect(bad.status).toBe(422);
    expect((await bad.json()).errors).toEqual({
      status: ['状態が正しくありません。'],
      per_page: ['表示件数が正しくありません。'],
    });
    const nobody = await admin.post(`/api/mails/${someone}/resend`);
    expect(nobody.status).toBe(404);
    expect((await nobody.json()).message).toBe('メールが見つかりませんでした。');
    expect((await admin.post('/api/mails/not-a-uuid/resend')).status).toBe(404);

    // A mail another attempt is sending right now (a live claim) cannot be resent.
    const busyAddress = address('sending');
    const { event } = await quietMember(busyAddress);
    smtp.refuse(busyAddress);
    await onUserRegistered({ ...t.runtime.jobContext(), event }, event).catch(() => undefined);
    smtp.accept(busyAddress);
    const row = (await delivery(busyAddress)) as DeliveryRow;
    await t.runtime.deps.orm.em
      .fork()
      .execute("update mail_deliveries set status = 'sending', claimed_at = now() where id = ?", [row.id]);
    const busy = await admin.post(`/api/mails/${row.id}/resend`);
    expect(busy.status).toBe(409);
    expect((await busy.json()).message).toBe('このメールは送信中です。結果が出るまでお待ちください。');
    const sending = await (await admin.get('/api/mails?status=sending')).json();
    expect(sending.mails.some((m: { id: string }) => m.id === row.id)).toBe(true);
    // That attempt failed after all.
    await t.runtime.deps.orm.em
      .fork()
      .execute("update mail_deliveries set status = 'failed', claimed_at = null where id = ?", [row.id]);

    // Paging: one per page.
    const pages = await (await admin.get('/api/mails?status=failed&per_page=1&page=1')).json();
    expect(pages).toMatchObject({ page: 1, per_page: 1 });
    expect(pages.mails.length).toBeLessThanOrEqual(1);
    expect(pages.total).toBeGreaterThanOrEqual(1);
  });
});

async function outboxEventOf(userId: string): Promise<string | undefined> {
  const rows = await t.runtime.deps.orm.em
    .fork()
    .execute<{ id: string }[]>("select id from outbox_events where name = 'UserRegistered' and payload->>'userId' = ?", [userId]);
  return rows[0]?.id;
}

describe('a resend while Redis is unreachable', () => {
  // Last in this file: it cuts the web side's Redis connection (the queues' producer).
  it('answers 503 in Japanese and leaves the mail failed, as it was', async () => {
    const email = address('no-redis');
    smtp.refuse(email);
    await register(email);
    const failed = await eventually(async () => {
      const row = await delivery(email);
      return row?.status === 'failed' && row;
    });
    t.runtime.deps.redis.disconnect();
    const res = await admin.post(`/api/mails/${failed.id}/resend`);
    expect(res.status).toBe(503);
    expect((await res.json()).message).toBe('ただいま再送信できません。しばらく時間をおいてから再度お試しください。');
    expect(await delivery(email)).toMatchObject({ status: 'failed', permanent: true, attempts: 1 });
  });
});
