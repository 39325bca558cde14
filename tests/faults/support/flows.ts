import { setTimeout as sleep } from 'node:timers/promises';
import { expect, it } from 'vitest';
import type { TestClient } from '../../support/http-client.ts';
import type { FaultShop, ShopProcess } from './shop.ts';
import type { FaultSmtp } from './smtp.ts';

export const VERIFY_SUBJECT = 'メールアドレスの確認';
export const RECEIPT_SUBJECT = 'ご購入ありがとうございます';
export const PASSWORD = 'fault-suite-pass-123';

let seq = 0;
export const uniqueEmail = (tag: string) =>
  `${tag}-${++seq}-${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}@example.jp`;

/** Polls until `check` returns a truthy value; fails with `what` (and the shop's logs) after `timeoutMs`. */
export async function until<T>(
  check: () => Promise<T | undefined | null | false>,
  timeoutMs: number,
  what: string,
  shop?: FaultShop,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value) return value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) {
      throw new Error(
        `timed out after ${timeoutMs} ms waiting for ${what}${last ? `: ${String(last)}` : ''}\n${shop?.logs() ?? ''}`,
      );
    }
    await sleep(250);
  }
}

/** Runs `task` over `items` with at most `limit` at a time. */
export async function inParallel<T, R>(items: T[], limit: number, task: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        results[i] = await task(items[i] as T, i);
      }
    }),
  );
  return results;
}

/** A registration through the API (POST /api/users/registration), as the SPA sends it. */
export async function register(shop: FaultShop, email: string, web?: ShopProcess): Promise<void> {
  const res = await shop.client(web).post('/api/users/registration', {
    email,
    email_confirmation: email,
    last_name: '障害',
    first_name: '試験',
    affiliations: 4,
    affiliation_name: '〇〇市消防局',
    affiliation_other: '',
    distribution: true,
    password: PASSWORD,
    password_confirmation: PASSWORD,
  });
  expect(res.status, await res.clone().text()).toBe(200);
}

/** Opens the verification link of the mail sent to `email`, then signs in: a member ready to buy. */
export async function verifyAndLogin(shop: FaultShop, smtp: FaultSmtp, email: string, web?: ShopProcess): Promise<TestClient> {
  const mail = smtp.to(email).find((m) => m.subject.includes(VERIFY_SUBJECT));
  const path = /https?:\/\/[^/\s]+(\/api\/users\/registration\/verify\/[\w-]+)/.exec(mail?.text ?? '')?.[1];
  if (!path) throw new Error(`no verification link for ${email}`);
  const client = shop.client(web);
  const verified = await client.get(path);
  expect(verified.headers.get('location')).toBe('/users/registration/email-verified');
  const login = await client.login(email, PASSWORD);
  expect(login.status, await login.clone().text()).toBe(200);
  return client;
}

/** Starts a card checkout through the API and pays it on the emulator; returns the Checkout Session id. */
export async function buy(shop: FaultShop, client: TestClient, licenseId: number): Promise<string> {
  const res = await client.post('/api/licenses/stripe', { licenseId, distribution: true });
  expect(res.status, await res.clone().text()).toBe(200);
  const { url } = (await res.json()) as { url: string };
  const sessionId = new URL(url).pathname.split('/').pop() as string;
  shop.emulator.pay(sessionId, 'card');
  return sessionId;
}

/** Verification mails received so far for `emails`. */
export const verificationsReceived = (smtp: FaultSmtp, emails: string[]) => {
  const wanted = new Set(emails.map((e) => e.toLowerCase()));
  return new Set(smtp.received.filter((m) => wanted.has(m.to) && m.subject.includes(VERIFY_SUBJECT)).map((m) => m.to)).size;
};

/**
 * A scenario whose feature has not landed yet (the reason is in its title): skipped, so the suite CI
 * runs stays green, unless FAULTS_ALL=1 runs it anyway to see where the feature stands.
 */
export const notYet = process.env.FAULTS_ALL === '1' ? it : it.skip;
