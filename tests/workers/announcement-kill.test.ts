import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadEnv } from '../../src/config/env.ts';
import { db } from '../../src/db/kysely.ts';
import type { Em, Orm } from '../../src/db/orm.ts';
import { openDatabase } from '../../src/host/modules.ts';
import { revision } from '../../src/legal-texts.ts';
import { site } from '../../src/site-settings.ts';
import { aMember, anAdmin, manyMembers } from '../support/factories.ts';
import { TestClient } from '../support/http-client.ts';
import { startPrivateRedis } from '../support/redis-server.ts';
import { startTestRuntime, type TestRuntime } from '../support/runtime.ts';
import { startSmtp, type TestSmtp } from '../support/smtp.ts';
import { eventually } from '../support/wait.ts';

const root = resolve(import.meta.dirname, '../..');
const cleanups: (() => Promise<unknown> | unknown)[] = [];
let t: TestRuntime;
let orm: Orm;
let smtp: TestSmtp;
let redisUrl: string;
let admin: TestClient;
const withdrawn: string[] = [];
/** The workers' last words, for a failure's message. */
let output = '';

beforeAll(async () => {
  smtp = await startSmtp();
  cleanups.push(() => smtp.close());
  t = await startTestRuntime();
  cleanups.push(() => t.stop());
  const deps = t.runtime.deps;
  await manyMembers(deps.orm, { to: 1000, email: 'reader-{n}@example.jp' });
  await manyMembers(deps.orm, { to: 30, email: 'declined-{n}@example.jp', distribution: false });
  await manyMembers(deps.orm, { to: 30, email: 'unverified-{n}@example.jp', emailVerified: false });
  for (let i = 0; i < 3; i++) {
    const m = await aMember(deps.orm, { email: `withdrawn-${i}@example.jp` });
    const client = new TestClient(t.app, `10.62.0.${i + 10}`);
    expect((await client.login(m.email, m.password)).status).toBe(200);
    expect((await client.post(`/api/users/${m.id}/withdrawal`, { password: m.password })).status).toBe(200);
    withdrawn.push(m.email);
  }
  const a = await anAdmin(deps.orm, { email: 'sender@example.jp' });
  admin = new TestClient(t.app, '10.62.0.1');
  expect((await admin.login(a.email, a.password)).status).toBe(200);
  // From here the spawned worker relays and sends; this runtime's relay must not take its events.
  await t.runtime.stop();
  orm = await openDatabase(loadEnv({ DATABASE_URL: t.db.url }));
  cleanups.push(() => orm.close(true));
  const redis = await startPrivateRedis();
  cleanups.push(() => redis.stop());
  redisUrl = redis.url;
}, 120_000);
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await Promise.resolve(cleanup()).catch(() => undefined);
});

/** `src/main.ts worker` as `npm run start:worker` starts it, with a short job lock and a high rate. */
function startWorker(dataDir: string): ChildProcess {
  const child = spawn(process.execPath, ['src/main.ts', 'worker'], {
    cwd: root,
    env: {
      PATH: process.env.PATH,
      DATA_DIR: dataDir,
      DATABASE_URL: t.db.url,
      REDIS_URL: redisUrl,
      SMTP_URL: smtp.url,
      APP_URL: 'http://localhost:3000',
      AUTH_SECRET: randomBytes(32).toString('hex'),
      LOG_LEVEL: process.env.TEST_LOG === '1' ? 'info' : 'warn',
      ANNOUNCEMENT_RATE_PER_MINUTE: '60000',
      JOB_LOCK_SECONDS: '2',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  for (const stream of [child.stdout, child.stderr]) {
    stream?.on('data', (chunk) => {
      output = (output + chunk).slice(-4000);
      if (process.env.TEST_LOG === '1') process.stderr.write(chunk);
    });
  }
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  cleanups.push(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
  });
  return child;
}

const mailsWith = (subject: string) => smtp.messages.filter((m) => m.subject === subject);
const recipientOf = (mail: (typeof smtp.messages)[number]) =>
  (mail.to && !Array.isArray(mail.to) ? mail.to.value[0]?.address : undefined) ?? '';
const readers = Array.from({ length: 1000 }, (_, i) => `reader-${i + 1}@example.jp`);

/**
 * Asks for a send through the API (it waits in the outbox: no worker yet), kills the worker after 300
 * mails, starts another, and checks that exactly `expected` got one e-mail each and nobody else any.
 */
async function killedMidSend(subject: string, ask: () => Promise<Response>, expected: string[]) {
  const dataDir = mkdtempSync(join(tmpdir(), 'shop-announce-'));
  cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
  const res = await ask();
  expect(res.status).toBe(202);
  const { id } = (await res.json()) as { id: string };

  const first = startWorker(dataDir);
  await eventually(async () => mailsWith(subject).length >= 300, 90_000, `300 mails before the kill (${output})`);
  first.kill('SIGKILL');
  await new Promise((done) => first.once('exit', done));
  expect(mailsWith(subject).length).toBeLessThan(expected.length);

  const second = startWorker(dataDir);
  const progress = () =>
    db(orm.em.fork() as Em)
      .selectFrom('announcements')
      .select('state')
      .where('id', '=', id)
      .executeTakeFirst();
  await eventually(async () => (await progress())?.state === 'done', 90_000, `the announcement to finish (${output})`);
  second.kill('SIGTERM');
  await new Promise((done) => second.once('exit', done));

  const mails = mailsWith(subject);
  const byRecipient = new Map<string, Set<string>>();
  for (const mail of mails) {
    const to = recipientOf(mail);
    byRecipient.set(to, (byRecipient.get(to) ?? new Set()).add(mail.messageId ?? ''));
  }
  expect([...byRecipient.keys()].sort()).toEqual([...expected].sort());
  // One e-mail each: a second copy can only be the one in flight at the kill, with the same Message-ID.
  for (const ids of byRecipient.values()) expect(ids.size).toBe(1);
  expect(mails.length - expected.length).toBeLessThanOrEqual(1);
  const rows = await db(orm.em.fork() as Em)
    .selectFrom('announcement_recipients')
    .select(['status'])
    .where('announcement_id', '=', id)
    .execute();
  expect(rows).toHaveLength(expected.length);
  expect(rows.every((r) => r.status === 'sent')).toBe(true);
  for (const gone of ['unverified-1@example.jp', ...withdrawn]) expect(mails.some(smtp.to(gone))).toBe(false);
  return mails;
}

it('a worker killed mid-send and started again: each of 1,000 members gets the announcement once, nobody else any', async () => {
  const subject = `【${site.shopName}】新しいトレーニングのご案内`;
  const ask = () =>
    admin.post('/api/announcements', { subject: '新しいトレーニングのご案内', body: '春の新コースのご案内です。' });
  const mails = await killedMidSend(subject, ask, [...readers, 'sender@example.jp']);
  expect(mails.some(smtp.to('declined-1@example.jp'))).toBe(false);
}, 240_000);

it('the terms revision’s notice, killed mid-send the same way: once to every verified member, those who declined announcements too', async () => {
  const subject = `【${site.shopName}】利用規約・プライバシーポリシー改定のお知らせ`;
  const ask = () => admin.post('/api/announcements/legal-notice', { revision: revision.id });
  const declined = Array.from({ length: 30 }, (_, i) => `declined-${i + 1}@example.jp`);
  const mails = await killedMidSend(subject, ask, [...readers, ...declined, 'sender@example.jp']);
  expect(mails.every((m) => !m.headerLines.some((h) => h.key.startsWith('list-')))).toBe(true);
}, 240_000);
