import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, expect, it } from 'vitest';
import {
  buy,
  inParallel,
  PASSWORD,
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

const DRILL = resolve(import.meta.dirname, '../../scripts/restore-drill.sh');
let services: Services | undefined;
const shops: FaultShop[] = [];

afterEach(async () => {
  for (const shop of shops.splice(0).reverse()) await shop.stop();
  await services?.stop();
  services = undefined;
});

/**
 * The restore drill of docs/runbooks/backups.md, as an operator runs it: scripts/restore-drill.sh takes
 * a `pg_dump -Fc` of the live database and restores it into a new one; the shop starts on the copy with
 * an empty Redis (Redis is never backed up) and the same Stripe account.
 */
it('a pg_dump -Fc taken while members register and buy, restored into a new database: every sale and member present, pending work re-driven once, the ledger balances', async () => {
  services = await startServices();
  const { pg, redis, smtp } = services;
  const live = await startFaultShop({ pg, redis, smtp, webs: 1, workers: 1 });
  shops.push(live);
  const licenseId = await live.createLicense('復元試験ライセンス', 4400);
  const mails: ExpectedMail[] = [];
  const sales: string[] = [];

  // Members who registered, verified and bought with everything running, and two verified ones who buy later.
  const settled = Array.from({ length: 6 }, () => uniqueEmail('restore-done'));
  await inParallel(settled, 3, (email) => register(live, email));
  await until(async () => verificationsReceived(smtp, settled) === settled.length, 60_000, 'verification mails', live);
  const clients = await inParallel(settled, 3, (email) => verifyAndLogin(live, smtp, email));
  sales.push(...(await inParallel(clients.slice(0, 4), 4, (client) => buy(live, client, licenseId))));
  await until(async () => (await live.sql('select 1 from sales')).length === sales.length, 60_000, 'the first sales', live);
  mails.push(...settled.map((to) => ({ to, subject: VERIFY_SUBJECT })));
  mails.push(...settled.map((to) => ({ to, subject: RECEIPT_SUBJECT })));

  // The worker stops: new registrations and payments are recorded in PostgreSQL and wait for it.
  await live.workers[0]?.stop();
  const waiting = Array.from({ length: 3 }, () => uniqueEmail('restore-waiting'));
  await inParallel(waiting, 3, (email) => register(live, email));
  mails.push(...waiting.map((to) => ({ to, subject: VERIFY_SUBJECT })));
  const paidLate = await inParallel(clients.slice(4), 2, (client) => buy(live, client, licenseId));
  await until(
    async () => (await live.sql('select 1 from stripe_events where stripe_session_id = any($1)', [paidLate])).length >= 2,
    30_000,
    'the late payments in the inbox',
    live,
  );
  sales.push(...paidLate);

  // The dump, while members go on registering: those answered before it began must be in the copy;
  // those answered during it may or may not be; later ones are after the restore point.
  const before: string[] = [];
  const during: string[] = [];
  let phase: 'before' | 'during' | 'after' = 'before';
  let registering = true;
  const registrations = (async () => {
    while (registering) {
      const email = uniqueEmail('restore-racing');
      const at = phase;
      await register(live, email);
      (at === 'before' && phase === 'before' ? before : during).push(email);
    }
  })();
  await until(async () => before.length >= 3, 30_000, 'registrations before the dump', live);
  const copy = `${live.database}_restored`;
  phase = 'during';
  const drill = await promisify(execFile)(DRILL, [live.databaseUrl, pg.urlOf(copy)], { timeout: 120_000 });
  phase = 'after';
  registering = false;
  await registrations;
  mails.push(...before.map((to) => ({ to, subject: VERIFY_SUBJECT })));
  console.info(`restore drill (${before.length} registered before the dump, ${during.length} during it):\n${drill.stdout}`);
  expect(drill.stdout).toMatch(/^duplicate_sales 0$/m);
  expect(drill.stdout).toMatch(/^sales_without_member 0$/m);
  const pending = (name: string) => Number(new RegExp(`^${name} (\\d+)$`, 'm').exec(drill.stdout)?.[1]);
  // The copy holds work not done yet (at least the two late payments), which only PostgreSQL remembers.
  expect(pending('payments_inbox_unprocessed'), drill.stdout).toBeGreaterThanOrEqual(2);

  // The live shop is gone with its Redis; the copy starts on an empty one, with the same secrets and Stripe.
  await Promise.all(live.processes.map((p) => p.stop()));
  await redis.flushAll();
  const restored = await startFaultShop({
    pg,
    redis,
    smtp,
    webs: 1,
    workers: 1,
    database: copy,
    env: { AUTH_SECRET: live.env.AUTH_SECRET as string, STRIPE_API_URL: live.stripeUrl },
  });
  shops.push(restored);

  const members = await restored.sql<{ email: string }>('select email from users');
  const present = new Set(members.map((m) => m.email));
  expect([...settled, ...waiting, ...before].filter((email) => !present.has(email))).toEqual([]);
  const racing = during.filter((email) => present.has(email));
  const lost = during.filter((email) => !present.has(email));
  const problems = await settle(
    restored,
    smtp,
    { sales, mails, optionalMails: racing.map((to) => ({ to, subject: VERIFY_SUBJECT })), neverMailed: lost },
    180_000,
  );
  expect(problems).toEqual([]);
  const [outbox] = await restored.sql<{ n: number }>('select count(*)::int as n from outbox_events where published_at is null');
  expect(outbox?.n).toBe(0);

  // The members of the copy sign in with the passwords they chose before the dump.
  const member = restored.client();
  expect((await member.login(settled[0] as string, PASSWORD)).status).toBe(200);
}, 600_000);
