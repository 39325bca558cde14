import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import {
  buy,
  inParallel,
  RECEIPT_SUBJECT,
  register,
  uniqueEmail,
  until,
  VERIFY_SUBJECT,
  verificationsReceived,
  verifyAndLogin,
} from './support/flows.ts';
import { type ExpectedMail, jobCounts, settle } from './support/ledger.ts';
import { type Services, startServices } from './support/services.ts';
import { type FaultShop, startFaultShop } from './support/shop.ts';

let services: Services;
let shop: FaultShop;
/** The e-mails and sales the running scenario expects, for its ledger. */
let expected: ExpectedMail[] = [];
let sales: string[] = [];
let failedJobs = 0;

/** Each scenario gets its own servers and shop: what one leaves behind cannot blur another's ledger. */
async function fresh(env?: Record<string, string>) {
  services = await startServices();
  shop = await startFaultShop({ ...services, env });
  expected = [];
  sales = [];
  failedJobs = 0;
  return services.smtp;
}
afterEach(async () => {
  await shop?.stop();
  await services?.stop();
  shop = undefined as unknown as FaultShop;
  services = undefined as unknown as Services;
});

const delivery = async (email: string) =>
  (
    await shop.sql<{ status: string; attempts: number; error: string | null; message_id: string | null }>(
      'select status, attempts, error, message_id from mail_deliveries where recipient = $1',
      [email],
    )
  )[0];

describe('the SMTP server misbehaves', () => {
  it('550 for a recipient: recorded on the delivery with the server answer, never delivered', async () => {
    const smtp = await fresh();
    smtp.setMode('reject');
    const email = uniqueEmail('refused');
    await register(shop, email);
    const row = await until(async () => (await delivery(email))?.error, 30_000, 'the refusal on record', shop);
    expect(row).toContain('550');
    smtp.setMode('ok');
    expect((await delivery(email))?.status).toBe('failed');
    expect(smtp.to(email)).toEqual([]);
  });

  it('550 stops at once: one attempt, the job failed for good, no retry', async () => {
    const smtp = await fresh();
    smtp.setMode('reject');
    const email = uniqueEmail('refused-once');
    await register(shop, email);
    await until(async () => (await delivery(email))?.status === 'failed', 30_000, 'the refusal on record', shop);
    // BullMQ counts a job failed only when no attempt is left (a retry waits as delayed): none will come.
    await until(async () => (await jobCounts(shop)).mail?.failed === 1, 30_000, 'the job failed for good', shop);
    expect((await jobCounts(shop)).mail?.delayed ?? 0).toBe(0);
    smtp.setMode('ok');
    expect((await delivery(email))?.attempts).toBe(1);
    expect(smtp.refusals.filter((r) => r.to === email).length).toBe(1);
    failedJobs++;
    expect(await settle(shop, smtp, { mails: expected, sales, neverMailed: [email], failedJobs }, 30_000)).toEqual([]);
  });

  it('451 past the old budget (8 tries): no e-mail is given up, each goes out once the server accepts again', async () => {
    // Retries 2 s apart at most (the fault suite's usual cap is 5 s, production's 5 minutes): the
    // attempts still cover the 24-hour budget, so passing the old 8 tries takes seconds.
    const smtp = await fresh({ JOB_RETRY_MAX_DELAY_SECONDS: '2' });
    smtp.setMode('tempfail');
    const emails = Array.from({ length: 10 }, () => uniqueEmail('greylisted'));
    await inParallel(emails, 5, (email) => register(shop, email));
    expected.push(...emails.map((to) => ({ to, subject: VERIFY_SUBJECT })));
    const refusedOf = (email: string) => smtp.refusals.filter((r) => r.to === email).length;
    await until(async () => emails.every((email) => refusedOf(email) >= 9), 120_000, 'a ninth refusal of every e-mail', shop);
    expect(verificationsReceived(smtp, emails)).toBe(0);
    expect((await jobCounts(shop)).mail?.failed ?? 0).toBe(0);
    smtp.setMode('ok');
    // The next retry comes after the capped back-off (2 s, +20 % jitter).
    await until(async () => verificationsReceived(smtp, emails) === emails.length, 60_000, 'every e-mail after the outage', shop);
    expect(await settle(shop, smtp, { mails: expected, sales, failedJobs }, 60_000)).toEqual([]);
  }, 300_000);

  it('a hung server costs seconds, not minutes: mail flows again and a payment does not wait behind it', async () => {
    const smtp = await fresh();
    const licenseId = await shop.createLicense('ハング試験ライセンス');
    const buyer = uniqueEmail('buyer-hang');
    await register(shop, buyer);
    await until(async () => verificationsReceived(smtp, [buyer]) === 1, 30_000, 'the buyer verification', shop);
    const member = await verifyAndLogin(shop, smtp, buyer);
    expected.push({ to: buyer, subject: VERIFY_SUBJECT });
    smtp.setMode('hang');
    const emails = Array.from({ length: 6 }, () => uniqueEmail('hung'));
    await inParallel(emails, 3, (email) => register(shop, email));
    expected.push(...emails.map((to) => ({ to, subject: VERIFY_SUBJECT })));
    await until(async () => smtp.hangs() >= 2, 30_000, 'the server to hold connections', shop);
    const started = Date.now();
    const session = await buy(shop, member, licenseId);
    sales.push(session);
    await until(
      async () => (await shop.sql('select 1 from sales where stripe_session_id = $1', [session])).length === 1,
      20_000,
      'the sale while SMTP hangs',
      shop,
    );
    expect(Date.now() - started).toBeLessThan(20_000);
    await sleep(5_000);
    smtp.setMode('ok');
    expected.push({ to: buyer, subject: RECEIPT_SUBJECT });
    await until(async () => verificationsReceived(smtp, emails) === emails.length, 90_000, 'every e-mail after the hang', shop);
    expect(await settle(shop, smtp, { mails: expected, sales, failedJobs }, 60_000)).toEqual([]);
  });

  it('accept-then-drop: the server keeps the message but never answers; the copies sent again share one Message-ID', async () => {
    const smtp = await fresh();
    smtp.setMode('drop');
    const emails = Array.from({ length: 10 }, () => uniqueEmail('dropped'));
    await inParallel(emails, 5, (email) => register(shop, email));
    expected.push(...emails.map((to) => ({ to, subject: VERIFY_SUBJECT })));
    await until(async () => verificationsReceived(smtp, emails) === emails.length, 30_000, 'each message once received', shop);
    await sleep(5_000);
    smtp.setMode('ok');
    expect(await settle(shop, smtp, { mails: expected, sales, failedJobs }, 120_000)).toEqual([]);
  });
});
