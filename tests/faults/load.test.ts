import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
import { settle } from './support/ledger.ts';
import { type Services, startServices } from './support/services.ts';
import { type FaultShop, startFaultShop } from './support/shop.ts';

let services: Services;
let shop: FaultShop;

beforeAll(async () => {
  services = await startServices();
  shop = await startFaultShop({ ...services, webs: 2, workers: 2 });
});
afterAll(async () => {
  await shop?.stop();
  await services?.stop();
});

describe('two web processes and two workers', () => {
  it('200 registrations through the API and 200 purchases through the emulator: every sale and e-mail once', async () => {
    const { smtp } = services;
    const licenseId = await shop.createLicense();
    const emails = Array.from({ length: 200 }, () => uniqueEmail('load'));
    // Registrations alternate between the two web processes.
    await inParallel(emails, 10, (email, i) => register(shop, email, shop.webs[i % 2]));
    await until(async () => verificationsReceived(smtp, emails) === emails.length, 120_000, '200 verification e-mails', shop);
    const sessions = await inParallel(emails, 10, async (email, i) => {
      const member = await verifyAndLogin(shop, smtp, email, shop.webs[(i + 1) % 2]);
      return buy(shop, member, licenseId);
    });
    const mails = emails.flatMap((to) => [
      { to, subject: VERIFY_SUBJECT },
      { to, subject: RECEIPT_SUBJECT },
    ]);
    expect(await settle(shop, smtp, { sales: sessions, mails }, 180_000)).toEqual([]);
  });
});
