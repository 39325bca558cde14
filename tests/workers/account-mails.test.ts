import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { DomainEvent, EventName } from '../../src/events/contracts.ts';
import { MailInFlightError } from '../../src/modules/mail/index.ts';
import { handlerFor } from '../../workers/handlers.ts';
import { aMember } from '../support/factories.ts';
import { startTestRuntime, type TestRuntime } from '../support/runtime.ts';
import { startSmtp, type TestSmtp } from '../support/smtp.ts';

let smtp: TestSmtp;
let t: TestRuntime;

beforeAll(async () => {
  smtp = await startSmtp();
  // Web mode: no worker competes with the handlers this test runs itself.
  t = await startTestRuntime({ mode: 'web', smtpUrl: smtp.url });
});
afterAll(async () => {
  await t?.stop();
  await smtp?.close();
});

async function member(verified: boolean) {
  const email = `job-${randomUUID()}@example.jp`;
  const user = await aMember(t.runtime.deps.orm, {
    email,
    password: 'member-pass-123',
    lastName: '伊藤',
    firstName: '四郎',
    emailVerified: verified,
  });
  return { id: user.id, email };
}

const cases: { name: EventName; verified: boolean; payload: (userId: string) => Record<string, unknown>; mails: number }[] = [
  { name: 'UserRegistered', verified: false, payload: (userId) => ({ userId }), mails: 1 },
  { name: 'VerificationEmailRequested', verified: false, payload: (userId) => ({ userId }), mails: 1 },
  { name: 'RegistrationAttempted', verified: true, payload: (userId) => ({ userId }), mails: 1 },
  { name: 'PasswordResetRequested', verified: true, payload: (userId) => ({ userId }), mails: 1 },
  { name: 'SignInThrottled', verified: true, payload: (userId) => ({ userId }), mails: 1 },
  { name: 'PasswordChanged', verified: true, payload: (userId) => ({ userId, by: 'member' }), mails: 1 },
  {
    name: 'NewDeviceSignIn',
    verified: true,
    payload: (userId) => ({ userId, at: new Date().toISOString(), ip: '198.51.100.1', userAgent: 'Mozilla/5.0' }),
    mails: 1,
  },
  { name: 'EmailChangeAttempted', verified: true, payload: (userId) => ({ userId }), mails: 1 },
  {
    name: 'EmailChangedByAdmin',
    verified: true,
    payload: (userId) => ({ userId, oldEmail: `old-${userId}@example.jp` }),
    mails: 2,
  },
  {
    name: 'EmailChangeRequested',
    verified: true,
    payload: (userId) => ({ userId, newEmail: `new-${userId}@example.jp` }),
    mails: 2,
  },
];

it.each(cases)(
  '$name: a job that runs three times (twice at once) sends its e-mails once, logged for the member',
  async ({ name, verified, payload, mails }) => {
    const user = await member(verified);
    const event = { id: randomUUID(), name, occurredAt: new Date().toISOString(), payload: payload(user.id) } as DomainEvent;
    const handler = handlerFor('mail', event);
    if (!handler) throw new Error(`no mail handler for ${name}`);
    const ctx = () => t.runtime.jobContext();
    const racing = await Promise.allSettled([handler(ctx(), event), handler(ctx(), event)]);
    // A run that finds an e-mail claimed by the other (live) run stops with MailInFlightError, for its
    // job to retry later (docs/decisions/0007): it sends nothing itself.
    for (const run of racing) if (run.status === 'rejected') expect(run.reason).toBeInstanceOf(MailInFlightError);
    const results = [...racing.flatMap((run) => (run.status === 'fulfilled' ? [run.value] : [])), await handler(ctx(), event)];
    // Each run reports whether it sent anything; with two e-mails two racing runs may each send one.
    expect(results.filter((r) => r === 'done').length).toBeGreaterThanOrEqual(1);
    expect(results.filter((r) => r === 'done').length).toBeLessThanOrEqual(mails);
    // Every run above has returned: an e-mail it sent is already in (the server keeps it before answering 250).
    const ours = smtp.messages.filter((m) =>
      [m.to].flat().some((to) => to?.text.includes(user.id) || to?.text.includes(user.email)),
    );
    expect(ours).toHaveLength(mails);
    // Each is in the member's mail log: sent, after one attempt.
    const log = await t.runtime.deps.orm.em
      .fork()
      .execute('select status, attempts, error from mail_deliveries where user_id = ?', [user.id]);
    expect(log).toEqual(Array.from({ length: mails }, () => ({ status: 'sent', attempts: 1, error: null })));
    // Every link in them points at a token that exists and is unused.
    for (const mail of ours) {
      for (const token of (mail.text ?? '').matchAll(/\/(?:verify|reset-password)\/([\w-]{20,})/g)) {
        const rows = await t.runtime.deps.orm.em
          .fork()
          .execute("select used_at from account_tokens where token_hash = encode(sha256(convert_to(?, 'UTF8')), 'hex')", [
            token[1],
          ]);
        expect(rows).toHaveLength(1);
        expect(rows[0]?.used_at).toBeNull();
      }
    }
  },
);

it('the verification mail greets by the registered name, but never carries a name typed as a link', async () => {
  const send = async (lastName: string, firstName: string) => {
    const email = `greet-${randomUUID()}@example.jp`;
    const user = await aMember(t.runtime.deps.orm, { email, lastName, firstName, emailVerified: false });
    const event = {
      id: randomUUID(),
      name: 'UserRegistered',
      occurredAt: new Date().toISOString(),
      payload: { userId: user.id },
    };
    const handler = handlerFor('mail', event as DomainEvent);
    await handler?.(t.runtime.jobContext(), event as DomainEvent);
    return smtp.waitFor(smtp.to(email));
  };
  const named = await send('看護', '花子');
  expect(named.text?.split('\n')[0]).toBe('看護 花子 様');
  const link = await send('今すぐ', 'http://evil.example');
  expect(link.text?.split('\n')[0]).toBe('お客様');
  expect(link.text).not.toContain('evil.example');
});
