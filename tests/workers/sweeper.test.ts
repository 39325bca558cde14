import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { db, jsonb, millisecondsAgo, now } from '../../src/db/kysely.ts';
import { createOrPromoteAdmin } from '../../src/modules/accounts/index.ts';
import { TEST_REDIS_URL } from '../support/env.ts';
import { aLicense, aMember, aSale } from '../support/factories.ts';
import { TestClient } from '../support/http-client.ts';
import { startTestRuntime, type TestRuntime } from '../support/runtime.ts';
import { settled } from '../support/settle.ts';
import { startSmtp, type TestSmtp } from '../support/smtp.ts';
import { eventually } from '../support/wait.ts';

/**
 * The sweeper (docs/decisions/0019-sweeper.md) with a grace period and interval of one second: work
 * whose effect is missing is re-driven by the database, whatever Redis lost.
 */
let smtp: TestSmtp;
let t: TestRuntime;
let redis: Redis;
let admin: TestClient;

beforeAll(async () => {
  smtp = await startSmtp();
  t = await startTestRuntime({
    mode: 'all',
    smtpUrl: smtp.url,
    env: { SWEEP_GRACE_SECONDS: '1', SWEEP_EVERY_SECONDS: '1' },
  });
  redis = new Redis(TEST_REDIS_URL);
  await createOrPromoteAdmin(t.runtime.deps.orm, { email: 'sweep-admin@example.jp', password: 'sweep-admin-123' });
  admin = new TestClient(t.app, '10.61.0.1');
  await admin.login('sweep-admin@example.jp', 'sweep-admin-123');
});
afterAll(async () => {
  await t?.stop();
  await smtp?.close();
  await redis?.quit();
});

const sql = <T = Record<string, unknown>>(query: string, params: unknown[] = []) =>
  t.runtime.deps.orm.em.fork().execute<T[]>(query, params);

/** Everything this deployment kept in Redis goes, as with FLUSHALL on its own instance. */
async function loseRedis() {
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${t.prefix}:*`, 'COUNT', 1000);
    cursor = next;
    if (keys.length) await redis.del(...keys);
  } while (cursor !== '0');
}

describe('the sweeper re-drives what Redis lost', () => {
  it('sends every verification e-mail exactly once after the queued jobs were lost with the workers stopped', async () => {
    const since = new Date();
    const workers = t.runtime.workers?.workers ?? [];
    await Promise.all(workers.map((w) => w.pause()));
    const emails = Array.from({ length: 5 }, (_, i) => `lost-${i}-${Date.now()}@example.jp`);
    for (const email of emails) {
      await aMember(t.runtime.deps.orm, {
        email,
        password: 'member-pass-123',
        lastName: '佐藤',
        firstName: '一郎',
        emailVerified: false,
      });
    }
    // The relay published them (BullMQ accepted the jobs), then Redis lost everything.
    await eventually(async () => {
      const [row] = await sql<{ n: number }>(
        "select count(*)::int as n from outbox_events where name = 'UserRegistered' and published_at is null",
      );
      return row?.n === 0;
    });
    await loseRedis();
    expect(await t.runtime.deps.queues.mail.getJobCounts('waiting', 'active', 'delayed')).toEqual({
      waiting: 0,
      active: 0,
      delayed: 0,
    });
    for (const w of workers) w.resume();

    for (const email of emails) await smtp.waitFor(smtp.to(email), 20_000);
    // Every event acknowledged and no job left: a sweep re-drives only what is not, so a second copy would be here.
    await settled(t.runtime.deps, 'the re-driven events', { since });
    for (const email of emails) expect(smtp.messages.filter(smtp.to(email))).toHaveLength(1);
    const [open] = await sql<{ n: number }>(
      "select count(*)::int as n from outbox_events where name = 'UserRegistered' and handled_at is null",
    );
    expect(open?.n).toBe(0);
  });

  it('processes a Stripe event that was never queued, and one whose published job was lost', async () => {
    const stripeEvent = (id: string) =>
      JSON.stringify({
        id,
        object: 'event',
        type: 'payment_intent.created',
        created: 1_700_000_000,
        data: { object: { id: `pi_${id}` } },
      });
    const received = (id: string) => ({
      id,
      type: 'payment_intent.created',
      payload: stripeEvent(id),
      received_at: millisecondsAgo(60_000),
    });
    await db(t.runtime.deps.orm.em.fork()).insertInto('stripe_events').values(received('evt_sweep_never_queued')).execute();
    // Published by the relay as far as the database knows, but no job in Redis.
    await db(t.runtime.deps.orm.em.fork()).insertInto('stripe_events').values(received('evt_sweep_job_lost')).execute();
    await db(t.runtime.deps.orm.em.fork())
      .insertInto('outbox_events')
      .values({
        id: randomUUID(),
        name: 'StripeEventReceived',
        payload: jsonb({ eventId: 'evt_sweep_job_lost' }),
        occurred_at: now(),
        published_at: millisecondsAgo(10_000),
        attempts: 1,
      })
      .execute();
    const processed = await eventually(
      async () => {
        const rows = await sql<{ id: string; outcome: string }>(
          "select id, outcome from stripe_events where id like 'evt_sweep_%' and processed_at is not null",
        );
        return rows.length === 2 && rows;
      },
      20_000,
      'both Stripe events processed',
    );
    expect(processed.map((r) => r.outcome)).toEqual(['ignored', 'ignored']);
    // One event each: the sweeper recorded one for the row that had none and re-used the other;
    // both end acknowledged (the worker acknowledges right after the job completed).
    const expected = [
      { event_id: 'evt_sweep_job_lost', n: 1, open: 0 },
      { event_id: 'evt_sweep_never_queued', n: 1, open: 0 },
    ];
    const events = () =>
      sql<{ event_id: string; n: number; open: number }>(
        `select payload->>'eventId' as event_id, count(*)::int as n, count(*) filter (where handled_at is null)::int as open
         from outbox_events where name = 'StripeEventReceived' and payload->>'eventId' like 'evt_sweep_%' group by 1 order by 1`,
      );
    await eventually(async () => JSON.stringify(await events()) === JSON.stringify(expected), 10_000, 'both acknowledged');
    expect(await events()).toEqual(expected);
  });
});

describe('exports never stay running', () => {
  it('fails an export left running without a job (Japanese reason, temp file removed); it can be re-run', async () => {
    const license = await aLicense(t.runtime.deps.orm, { name: 'BLS' });
    const buyer = { lastName: '田中', firstName: '一郎', email: 'tanaka@fire.example.jp', stripeSessionId: 'cs_test_sweep' };
    await aSale(t.runtime.deps.orm, license, buyer);
    const created = await admin.post('/api/exports', {});
    expect(created.status).toBe(202);
    const id = (await created.json()).export.id as string;
    const state = async () => (await (await admin.get(`/api/exports/${id}`)).json()).export;
    await eventually(async () => (await state()).state === 'done', 15_000, 'the export done');

    // Its worker died mid-build: still `running`, no heartbeat for a while, a temp file left behind.
    await sql("update exports set state = 'running', heartbeat_at = now() - interval '1 minute' where id = ?", [id]);
    const dir = join(t.env.dataDir, 'exports');
    mkdirSync(dir, { recursive: true });
    const temp = join(dir, `.${id}.4242.0a1b.tmp`);
    writeFileSync(temp, 'half a file');
    const failed = await eventually(
      async () => {
        const row = await state();
        return row.state === 'failed' && row;
      },
      15_000,
      'the export marked failed',
    );
    expect(failed.error).toContain('CSVの作成が途中で止まりました');
    expect(failed.download_url).toBeNull();
    await eventually(async () => !existsSync(temp), 5_000, 'the temp file removed');

    const retried = await admin.post(`/api/exports/${id}/retry`, {});
    expect(retried.status).toBe(202);
    expect((await retried.json()).export.state).toBe('queued');
    await eventually(async () => (await state()).state === 'done', 15_000, 'the re-run done');
    const download = await admin.get(`/api/exports/${id}/download`);
    expect(download.status).toBe(200);
    expect(await download.text()).toContain('tanaka@fire.example.jp');
    const [audit] = await sql<{ n: number }>(
      "select count(*)::int as n from audit_logs where action = 'sale.export.retry' and target_id = ?",
      [id],
    );
    expect(audit?.n).toBe(1);
    // A temp file a dead job left behind for an export that is not running goes too (once it is older
    // than the grace period: a younger one may be a build just starting).
    const orphan = join(dir, `.${id}.4343.0c0d.tmp`);
    writeFileSync(orphan, 'left behind');
    const past = new Date(Date.now() - 60_000);
    utimesSync(orphan, past, past);
    await eventually(async () => !existsSync(orphan), 5_000, 'the orphan temp file removed');
    // Only a failed export can be re-run.
    const again = await admin.post(`/api/exports/${id}/retry`, {});
    expect(again.status).toBe(409);
    expect((await again.json()).message).toContain('失敗したエクスポート');
  });

  it('fails the export of a job that BullMQ gave up on (stalled past its limit)', async () => {
    const created = await admin.post('/api/exports', {});
    const id = (await created.json()).export.id as string;
    await eventually(async () => (await (await admin.get(`/api/exports/${id}`)).json()).export.state === 'done');
    // As after two kills: the job failed for good while the export says running.
    const [event] = await sql<{ id: string }>(
      "select id from outbox_events where name = 'ExportRequested' and payload->>'exportId' = ?",
      [id],
    );
    const eventId = event?.id as string;
    await sql("update exports set state = 'running', heartbeat_at = now() where id = ?", [id]);
    await sql("update outbox_events set handled_at = null, handled_queues = '{}' where id = ?", [eventId]);
    const exportsQueue = t.runtime.deps.queues.exports;
    await (await exportsQueue.getJob(eventId))?.remove();
    // Its heartbeat looks fresh, so only the failed job can tell the sweeper.
    await sql("update exports set heartbeat_at = now() + interval '1 hour' where id = ?", [id]);
    const exportsWorker = t.runtime.workers?.workers.find((w) => w.name === 'exports');
    await exportsWorker?.pause();
    // BullMQ's own failure, as its stalled-job checker records it after the second kill.
    const dying = new Worker(
      'exports',
      async () => {
        throw new Error('job stalled more than allowable limit');
      },
      { connection: redis.duplicate({ maxRetriesPerRequest: null }), prefix: t.prefix },
    );
    const [row] = await sql<{ name: string; payload: unknown; occurred_at: Date }>(
      'select name, payload, occurred_at from outbox_events where id = ?',
      [eventId],
    );
    await exportsQueue.add(
      'ExportRequested',
      { id: eventId, name: row?.name, occurredAt: new Date(row?.occurred_at as Date).toISOString(), payload: row?.payload },
      { jobId: eventId, attempts: 1 },
    );
    await eventually(async () => (await exportsQueue.getJob(eventId))?.isFailed(), 10_000, 'the job failed for good');
    await dying.close();
    exportsWorker?.resume();
    const failed = await eventually(
      async () => {
        const current = (await (await admin.get(`/api/exports/${id}`)).json()).export;
        return current.state === 'failed' && current;
      },
      15_000,
      'the export given up',
    );
    expect(failed.error).toContain('再実行');
    const [handled] = await sql<{ handled_at: Date | null }>('select handled_at from outbox_events where id = ?', [eventId]);
    expect(handled?.handled_at).not.toBeNull();
  });
});
