import { afterAll, beforeAll, expect, it } from 'vitest';
import { aMember } from '../support/factories.ts';

import { startTestRuntime, type TestRuntime } from '../support/runtime.ts';
import { startSmtp, type TestSmtp } from '../support/smtp.ts';
import { eventually } from '../support/wait.ts';

let smtp: TestSmtp;
let t: TestRuntime;
beforeAll(async () => {
  // An SMTP server that takes 1.5 s to accept each message: the job is in flight when we stop.
  smtp = await startSmtp({ delayMs: 1_500 });
  t = await startTestRuntime({ mode: 'all', smtpUrl: smtp.url });
});
afterAll(async () => {
  await t?.stop();
  await smtp?.close();
});

it('stopping the workers lets an in-flight e-mail job finish', async () => {
  const email = `drain-${Date.now()}@example.jp`;
  await aMember(t.runtime.deps.orm, {
    email,
    password: 'drain-pass-123',
    lastName: '停止',
    firstName: '確認',
    emailVerified: false,
  });
  await eventually(async () => smtp.receiving() > 0, 10_000, 'the job to be sending');
  await t.runtime.workers?.close();
  // close() returned only after the job finished: the message is there and recorded as sent.
  expect(smtp.messages.some(smtp.to(email))).toBe(true);
  const rows = await t.runtime.deps.orm.em.fork().execute('select message_id from mail_deliveries where recipient = ?', [email]);
  expect(rows[0]?.message_id).toBeTruthy();
});
