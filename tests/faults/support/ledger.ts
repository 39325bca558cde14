import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import type { FaultShop } from './shop.ts';
import type { FaultSmtp } from './smtp.ts';

const QUEUES = ['mail', 'payments', 'exports'] as const;

/**
 * Security notices the scenarios do not model: a sign-in from a browser the account had not used
 * (every test client is a new browser) and an administrator's two-factor enrolment. Not counted as
 * unexpected; the scenarios' own mails are still counted exactly.
 */
export const ACCOUNT_NOTICES = ['新しい端末からのログイン', '二段階認証の設定変更のお知らせ'];

export interface ExpectedMail {
  to: string;
  subject: string;
}

export interface LedgerExpectation {
  /** Checkout Session ids that must each have exactly one sale (and no other sale may exist). */
  sales?: string[];
  /** E-mails that must each arrive once (copies allowed only with one Message-ID); no other e-mail may arrive. */
  mails?: ExpectedMail[];
  /** E-mails that may arrive or not (their request got no clear answer), at most once per Message-ID. */
  optionalMails?: ExpectedMail[];
  /** E-mails that must never arrive (a permanent refusal). */
  neverMailed?: string[];
  /** Failed jobs that are expected (permanent failures; 'any': not checked); any other failed job is a problem. */
  failedJobs?: number | 'any';
}

/** BullMQ's counts per queue, jobs of a job scheduler (the next run of a schedule) left out. */
export async function jobCounts(shop: FaultShop) {
  const connection = new Redis(shop.env.REDIS_URL as string, { maxRetriesPerRequest: 1 });
  connection.on('error', () => undefined);
  const result: Record<string, Record<string, number>> = {};
  try {
    for (const name of QUEUES) {
      const queue = new Queue(name, { connection, prefix: 'shop' });
      try {
        const counts = await queue.getJobCounts('active', 'waiting', 'delayed', 'prioritized', 'waiting-children', 'failed');
        const delayed = await queue.getDelayed(0, -1);
        counts.delayed = delayed.filter((job) => !job.repeatJobKey && !job.id?.startsWith('repeat:')).length;
        result[name] = counts;
      } finally {
        await queue.close();
      }
    }
  } finally {
    connection.disconnect();
  }
  return result;
}

const pending = (counts: Record<string, Record<string, number>>) =>
  Object.values(counts).reduce(
    (n, c) =>
      n +
      (c.active ?? 0) +
      (c.waiting ?? 0) +
      (c.delayed ?? 0) +
      (c.prioritized ?? 0) +
      (c['waiting-children'] ?? 0) +
      (c.paused ?? 0),
    0,
  );

function tempFiles(dir: string): string[] {
  const found: string[] = [];
  const walk = (path: string) => {
    let names: string[];
    try {
      names = readdirSync(path);
    } catch {
      return;
    }
    for (const name of names) {
      const full = join(path, name);
      if (statSync(full).isDirectory()) walk(full);
      else if (name.endsWith('.tmp') || name.includes('.tmp.')) found.push(full);
    }
  };
  walk(dir);
  return found;
}

/**
 * What the shop's books say against what must have happened: every expected sale and e-mail exactly
 * once (copies of an e-mail share one Message-ID), nothing else; no job waiting, active or delayed;
 * no export queued or running; no temp file under DATA_DIR/exports. Returns the problems found.
 */
export async function ledgerProblems(shop: FaultShop, smtp: FaultSmtp, expected: LedgerExpectation): Promise<string[]> {
  const problems: string[] = [];
  if (expected.sales) {
    const rows = await shop.sql<{ session: string; n: number }>(
      'select stripe_session_id as session, count(*)::int as n from sales group by 1',
    );
    const bySession = new Map(rows.map((r) => [r.session, r.n]));
    const missing = expected.sales.filter((s) => !bySession.has(s));
    const doubled = rows.filter((r) => r.n > 1);
    const unexpected = rows.filter((r) => !expected.sales?.includes(r.session));
    if (missing.length) problems.push(`${missing.length} sales missing (e.g. ${missing.slice(0, 3).join(', ')})`);
    if (doubled.length) problems.push(`${doubled.length} sessions with more than one sale`);
    if (unexpected.length) problems.push(`${unexpected.length} unexpected sales`);
  }
  if (expected.mails) {
    const key = (to: string, subject: string) => `${to.toLowerCase()}\n${subject}`;
    const wanted = new Map(expected.mails.map((m) => [key(m.to, m.subject), m]));
    const copies = new Map<string, Set<string>>();
    const counts = new Map<string, number>();
    let unexpected = 0;
    for (const m of smtp.received) {
      const match = [...wanted.values()].find((w) => w.to.toLowerCase() === m.to && m.subject.includes(w.subject));
      if (!match) {
        const optional = expected.optionalMails?.some((w) => w.to.toLowerCase() === m.to && m.subject.includes(w.subject));
        const notice = ACCOUNT_NOTICES.some((subject) => m.subject.includes(subject));
        if (!optional && !notice) unexpected++;
        continue;
      }
      const k = key(match.to, match.subject);
      counts.set(k, (counts.get(k) ?? 0) + 1);
      copies.set(k, (copies.get(k) ?? new Set()).add(m.messageId));
    }
    const missing = [...wanted.keys()].filter((k) => !counts.has(k));
    const differing = [...copies.entries()].filter(([, ids]) => ids.size > 1);
    const duplicated = [...counts.values()].filter((n) => n > 1).length;
    if (missing.length) {
      const unsent = await shop
        .sql("select status, attempts, error from mail_deliveries where status <> 'sent' limit 3")
        .catch(() => []);
      problems.push(
        `${missing.length} of ${wanted.size} e-mails never arrived (e.g. ${missing[0]?.replace('\n', ' ')}; unsent deliveries: ${JSON.stringify(unsent)})`,
      );
    }
    if (differing.length) problems.push(`${differing.length} e-mails arrived more than once with different Message-IDs`);
    if (duplicated) console.info(`ledger: ${duplicated} e-mails arrived more than once with one Message-ID (at-least-once)`);
    if (unexpected) problems.push(`${unexpected} unexpected e-mails`);
  }
  for (const address of expected.neverMailed ?? []) {
    if (smtp.to(address).length) problems.push(`an e-mail reached ${address}, which the server refuses`);
  }
  const counts = await jobCounts(shop);
  const stuck = pending(counts);
  if (stuck) problems.push(`${stuck} jobs not finished: ${JSON.stringify(counts)}`);
  const failed = Object.values(counts).reduce((n, c) => n + (c.failed ?? 0), 0);
  if (expected.failedJobs !== 'any' && failed !== (expected.failedJobs ?? 0))
    problems.push(`${failed} failed jobs (expected ${expected.failedJobs ?? 0})`);
  const exports = await shop.sql<{ n: number }>("select count(*)::int as n from exports where state in ('queued', 'running')");
  if (exports[0]?.n) problems.push(`${exports[0].n} exports still queued or running`);
  const temps = tempFiles(join(shop.dataDir, 'exports'));
  if (temps.length) problems.push(`temp files left: ${temps.join(', ')}`);
  return problems;
}

/** Waits (up to `timeoutMs`) for the ledger to balance; returns the last problems (empty when it did). */
export async function settle(shop: FaultShop, smtp: FaultSmtp, expected: LedgerExpectation, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  let problems: string[] = [];
  for (;;) {
    problems = await ledgerProblems(shop, smtp, expected).catch((error) => [`ledger unreadable: ${String(error)}`]);
    if (problems.length === 0 || Date.now() > deadline) return problems;
    await sleep(1_000);
  }
}
