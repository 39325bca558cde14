import { setTimeout as sleep } from 'node:timers/promises';
import type { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Em } from '../../src/db/orm.ts';
import type { DomainEvent } from '../../src/events/contracts.ts';
import { recordEvent, transact } from '../../src/events/outbox.ts';
import type { Queues } from '../../src/events/queues.ts';
import { OutboxRelay } from '../../src/events/relay.ts';
import { PermanentJobError } from '../../src/jobs/errors.ts';
import { createLogger } from '../../src/lib/logger.ts';
import { accounts } from '../../src/modules/accounts/index.ts';
import { MailInFlightError } from '../../src/modules/mail/index.ts';
import { aMember, aMemberIn } from '../support/factories.ts';
import { startTestRuntime, type TestRuntime } from '../support/runtime.ts';
import { settled } from '../support/settle.ts';
import { startSmtp, type TestSmtp } from '../support/smtp.ts';

const onUserRegistered = accounts.handlers.UserRegistered;

let smtp: TestSmtp;
let t: TestRuntime;
let seq = 0;
const newMember = (tx: Em, email = `member${++seq}-${Date.now()}@example.jp`) =>
  aMemberIn(tx, { email, lastName: '佐藤', firstName: '一郎', emailVerified: false });

beforeAll(async () => {
  smtp = await startSmtp();
  t = await startTestRuntime({ mode: 'all', smtpUrl: smtp.url });
});
afterAll(async () => {
  await t?.stop();
  await smtp?.close();
});

describe('outbox → BullMQ → mail worker → SMTP', () => {
  it('delivers the verification e-mail of a committed registration, in Japanese, with a working link', async () => {
    const user = await transact(t.runtime.deps.orm.em as Em, (tx) => newMember(tx));
    const mail = await smtp.waitFor(smtp.to(user.email));
    expect(mail.subject).toBe('【ライセンスストア】メールアドレスの確認をお願いします');
    // The member is greeted by the name they registered (issue 35 item 6).
    expect(mail.text).toContain('佐藤 一郎 様');
    expect(mail.text).not.toContain('お客様');
    expect(mail.html).toContain('メールアドレスを確認する');
    const link = /http:\/\/localhost:3000(\/api\/users\/registration\/verify\/[\w-]+)/.exec(mail.text ?? '')?.[1];
    expect(link, mail.text).toBeDefined();

    const res = await t.app.request(link as string);
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('/users/registration/email-verified');
    const rows = await t.runtime.deps.orm.em.fork().execute('select email_verified from users where id = ?', [user.id]);
    expect(rows[0]?.email_verified).toBe(true);

    const published = await t.runtime.deps.orm.em
      .fork()
      .execute("select published_at from outbox_events where payload->>'userId' = ?", [user.id]);
    expect(published[0]?.published_at).not.toBeNull();
  });

  it('writes no event when the transaction rolls back', async () => {
    const email = `rollback-${Date.now()}@example.jp`;
    await expect(
      transact(t.runtime.deps.orm.em as Em, async (tx) => {
        await newMember(tx, email);
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    const rows = await t.runtime.deps.orm.em
      .fork()
      .execute(
        "select count(*)::int as n from outbox_events where payload->>'userId' in (select id from users where email = ?)",
        [email],
      );
    expect(rows[0]?.n).toBe(0);
    await settled(t.runtime.deps, 'the registration');
    expect(smtp.messages.some(smtp.to(email))).toBe(false);
  });

  it('sends one e-mail when the same job runs twice, even concurrently', async () => {
    const { orm } = t.runtime.deps;
    // Created verified, so no event is recorded and only this test's runs can send.
    const user = await aMember(orm, {
      email: `twice-${Date.now()}@example.jp`,
      password: 'member-pass-123',
      lastName: '鈴木',
      firstName: '次郎',
      emailVerified: true,
    });
    await orm.em.fork().execute('update users set email_verified = false where id = ?', [user.id]);
    const event: DomainEvent<'UserRegistered'> = {
      id: crypto.randomUUID(),
      name: 'UserRegistered',
      occurredAt: new Date().toISOString(),
      payload: { userId: user.id },
    };
    const ctx = () => t.runtime.jobContext();
    // Of two runs at once, one claims and sends; the other finds the live claim and stops with
    // MailInFlightError (its job would retry later), or comes after and skips.
    const racing = await Promise.allSettled([onUserRegistered(ctx(), event), onUserRegistered(ctx(), event)]);
    for (const run of racing) if (run.status === 'rejected') expect(run.reason).toBeInstanceOf(MailInFlightError);
    const results = racing.flatMap((run) => (run.status === 'fulfilled' ? [run.value] : []));
    results.push(await onUserRegistered(ctx(), event));
    expect(results.filter((r) => r === 'done')).toHaveLength(1);

    // The same event enqueued again under another job id (BullMQ forgot it): still one e-mail.
    await t.runtime.deps.queues.mail.add('UserRegistered', event, { jobId: `${event.id}-again` });
    await smtp.waitFor(smtp.to(user.email));
    await settled(t.runtime.deps, 'the job added again');
    expect(smtp.messages.filter(smtp.to(user.email))).toHaveLength(1);
    const rows = await orm.em.fork().execute('select count(*)::int as n from mail_deliveries where recipient = ?', [user.email]);
    expect(rows[0]?.n).toBe(1);
  });

  it('keeps a refused attempt (550) in the mail log, failed for good: later runs do not send it again', async () => {
    const { orm } = t.runtime.deps;
    const user = await aMember(orm, {
      email: `refused-${Date.now()}@example.jp`,
      password: 'member-pass-123',
      lastName: '高橋',
      firstName: '三郎',
      emailVerified: true,
    });
    await orm.em.fork().execute('update users set email_verified = false where id = ?', [user.id]);
    const event: DomainEvent<'UserRegistered'> = {
      id: crypto.randomUUID(),
      name: 'UserRegistered',
      occurredAt: new Date().toISOString(),
      payload: { userId: user.id },
    };
    const ctx = () => t.runtime.jobContext();
    const delivery = async () =>
      (
        await orm.em
          .fork()
          .execute(
            'select template, user_id, recipient, status, permanent, attempts, error, sent_at, failed_at from mail_deliveries where key like ?',
            [`${event.id}:%`],
          )
      )[0];

    smtp.refuse(user.email);
    // Permanent: the worker turns this into UnrecoverableError, so the job is not retried.
    await expect(onUserRegistered(ctx(), event)).rejects.toBeInstanceOf(PermanentJobError);
    expect(await delivery()).toMatchObject({
      template: 'verification',
      user_id: user.id,
      recipient: user.email,
      status: 'failed',
      permanent: true,
      attempts: 1,
      sent_at: null,
    });
    expect((await delivery())?.error).toMatch(/550.*mailbox unavailable/);
    expect((await delivery())?.failed_at).not.toBeNull();

    // The job runs again anyway (a re-drive): the refused e-mail is not tried, nothing is sent.
    smtp.accept(user.email);
    expect(await onUserRegistered(ctx(), event)).toBe('skipped');
    expect(await delivery()).toMatchObject({ status: 'failed', permanent: true, attempts: 1 });
    expect(smtp.messages.filter(smtp.to(user.email))).toHaveLength(0);
  });

  it('several relays publish each row once', async () => {
    const { orm } = t.runtime.deps;
    await t.runtime.relay.stop();
    const added: string[] = [];
    const counting = {
      ...t.runtime.deps.queues,
      mail: {
        add: async (_name: string, _data: unknown, opts: { jobId: string }) => {
          added.push(opts.jobId);
          await sleep(2);
          return { id: opts.jobId };
        },
      } as unknown as Queue,
    } as Queues;
    await transact(orm.em as Em, async (tx) => {
      for (let i = 0; i < 120; i++) recordEvent(tx, 'UserRegistered', { userId: `ghost-${i}` });
    });
    const log = createLogger('silent');
    const relays = [
      new OutboxRelay(orm, counting, log),
      new OutboxRelay(orm, counting, log),
      new OutboxRelay(orm, counting, log),
    ];
    const counts = await Promise.all(
      relays.map(async (r) => {
        let n = 0;
        for (let batch = await r.publishPending(); batch > 0; batch = await r.publishPending()) n += batch;
        return n;
      }),
    );
    expect(counts.reduce((a, b) => a + b, 0)).toBe(120);
    expect(new Set(added).size).toBe(added.length);
    expect(added).toHaveLength(120);
    const left = await orm.em.fork().execute('select count(*)::int as n from outbox_events where published_at is null');
    expect(left[0]?.n).toBe(0);
    t.runtime.relay.start();
  });
});
