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
import { type ExpectedMail, settle } from './support/ledger.ts';
import { type Services, startServices } from './support/services.ts';
import { type FaultShop, startFaultShop } from './support/shop.ts';

let services: Services | undefined;
let shop: FaultShop | undefined;

afterEach(async () => {
  await shop?.stop();
  await services?.stop();
  shop = undefined;
  services = undefined;
});

/** `n` members registered, verified and signed in (their verification e-mails are in `mails`). */
async function members(s: FaultShop, sv: Services, n: number, mails: ExpectedMail[], tag: string) {
  const emails = Array.from({ length: n }, () => uniqueEmail(tag));
  await inParallel(emails, 5, (email, i) => register(s, email, s.webs[i % 2]));
  await until(async () => verificationsReceived(sv.smtp, emails) === n, 120_000, `${n} verification e-mails`, s);
  mails.push(...emails.map((to) => ({ to, subject: VERIFY_SUBJECT })));
  return inParallel(emails, 5, async (email) => ({ email, client: await verifyAndLogin(s, sv.smtp, email) }));
}

describe('processes and connections die', () => {
  it('kill -9 of the workers after the SMTP server accepted: each e-mail sent again carries the same Message-ID', async () => {
    services = await startServices();
    shop = await startFaultShop({ ...services });
    const [s, sv] = [shop, services];
    sv.smtp.setReplyDelay(60_000);
    const emails = Array.from({ length: 5 }, () => uniqueEmail('killed'));
    await inParallel(emails, 5, (email) => register(s, email));
    // The server has every message; its 250 is still to come when the workers die.
    await until(async () => verificationsReceived(sv.smtp, emails) === emails.length, 30_000, 'the messages at the server', s);
    await Promise.all(s.workers.map((w) => w.kill()));
    sv.smtp.setReplyDelay(0);
    await Promise.all(s.workers.map((w) => w.start()));
    const mails = emails.map((to) => ({ to, subject: VERIFY_SUBJECT }));
    // BullMQ sees the jobs stalled after its lock (30 s); the claim's lease (2 minutes) then lets a retry send.
    expect(await settle(s, sv.smtp, { mails }, 300_000)).toEqual([]);
  });

  it('pg_terminate_backend twice while transactions are open: mail and payments flow again within a minute, no restart', async () => {
    services = await startServices();
    shop = await startFaultShop({ ...services });
    const [s, sv] = [shop, services];
    const mails: ExpectedMail[] = [];
    const licenseId = await s.createLicense();
    const buyers = await members(s, sv, 4, mails, 'terminated');
    // Slow replies keep mail jobs (and, until mail holds none, their transactions) open.
    sv.smtp.setReplyDelay(3_000);
    const emails = Array.from({ length: 10 }, () => uniqueEmail('terminated-mail'));
    await inParallel(emails, 5, (email) => register(s, email));
    mails.push(...emails.map((to) => ({ to, subject: VERIFY_SUBJECT })));
    await sleep(1_000);
    expect(await sv.pg.terminateBackends(s.database)).toBeGreaterThan(0);
    await sleep(2_000);
    await sv.pg.terminateBackends(s.database);
    sv.smtp.setReplyDelay(0);
    const started = Date.now();
    const sales = await inParallel(buyers, 4, ({ client }) => buy(s, client, licenseId));
    mails.push(...buyers.map(({ email }) => ({ to: email, subject: RECEIPT_SUBJECT })));
    await until(
      async () =>
        (await s.sql('select 1 from sales')).length === sales.length && verificationsReceived(sv.smtp, emails) === emails.length,
      60_000,
      'sales and e-mails after the terminations',
      s,
    );
    expect(Date.now() - started).toBeLessThan(60_000);
    expect(s.processes.every((p) => p.alive)).toBe(true);
    // A send whose 'sent' mark died with its connection is retried after the claim's lease (2 minutes).
    expect(await settle(s, sv.smtp, { mails, sales }, 200_000)).toEqual([]);
  });

  it('PostgreSQL restarted (fast) under load: every accepted registration and every paid sale once, every process serving again', async () => {
    services = await startServices();
    shop = await startFaultShop({ ...services });
    const [s, sv] = [shop, services];
    const mails: ExpectedMail[] = [];
    const licenseId = await s.createLicense();
    const buyers = await members(s, sv, 20, mails, 'restart-buyer');
    const emails = Array.from({ length: 40 }, () => uniqueEmail('restart-load'));
    const accepted: string[] = [];
    // A request cut by the restart may answer 5xx (or not at all) whether or not it committed.
    const unclear: string[] = [];
    const load = inParallel(emails, 4, async (email, i) => {
      const res = await s
        .client(s.webs[i % 2])
        .post('/api/users/registration', {
          email,
          email_confirmation: email,
          last_name: '障害',
          first_name: '試験',
          affiliations: 4,
          affiliation_name: '〇〇市消防局',
          affiliation_other: '',
          distribution: true,
          password: 'fault-suite-pass-123',
          password_confirmation: 'fault-suite-pass-123',
        })
        .catch(() => undefined);
      if (res?.status === 200) accepted.push(email);
      else if (!res || res.status >= 500) unclear.push(email);
      else throw new Error(`registration answered ${res.status}: ${await res.text()}`);
    });
    const sales = await inParallel(buyers, 4, async ({ client }, i) => {
      if (i === 6) sv.pg.restart();
      for (let tries = 0; ; tries++) {
        try {
          return await buy(s, client, licenseId);
        } catch (error) {
          if (tries > 30) throw error;
          await sleep(1_000);
        }
      }
    });
    await load;
    // Once PostgreSQL is back, every request succeeds again, on both web processes, with no restart.
    const after = Array.from({ length: 10 }, () => uniqueEmail('after-restart'));
    await inParallel(after, 5, (email, i) => register(s, email, s.webs[i % 2]));
    mails.push(...[...accepted, ...after].map((to) => ({ to, subject: VERIFY_SUBJECT })));
    mails.push(...buyers.map(({ email }) => ({ to: email, subject: RECEIPT_SUBJECT })));
    expect(accepted.length).toBeGreaterThan(0);
    expect(s.processes.every((p) => p.alive)).toBe(true);
    const optionalMails = unclear.map((to) => ({ to, subject: VERIFY_SUBJECT }));
    expect(await settle(s, sv.smtp, { mails, sales, optionalMails }, 180_000)).toEqual([]);
  });
});
