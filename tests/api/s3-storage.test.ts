import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createOrPromoteAdmin } from '../../src/modules/accounts/index.ts';
import { S3FileStore } from '../../src/storage/s3.ts';
import { aLicense, manySales } from '../support/factories.ts';
import { TestClient } from '../support/http-client.ts';
import { png } from '../support/images.ts';
import { startTestRuntime, type TestRuntime } from '../support/runtime.ts';
import { S3RVER_KEYS, startS3 } from '../support/s3.ts';
import { startSmtp, type TestSmtp } from '../support/smtp.ts';
import { eventually } from '../support/wait.ts';

/**
 * With S3_BUCKET set, pictures and exports live in the bucket only: a worker and a web process on
 * two different DATA_DIRs both serve them, and neither directory receives a file.
 */
let s3: Awaited<ReturnType<typeof startS3>>;
let smtp: TestSmtp;
let t: TestRuntime;
let other: TestRuntime;
let otherDir: string;
let bucket: S3FileStore;
let admin: TestClient;
let adminOnOther: TestClient;

beforeAll(async () => {
  s3 = await startS3('shop-files');
  // Credentials reach the SDK through its default chain, as in production.
  vi.stubEnv('AWS_ACCESS_KEY_ID', S3RVER_KEYS.accessKeyId);
  vi.stubEnv('AWS_SECRET_ACCESS_KEY', S3RVER_KEYS.secretAccessKey);
  smtp = await startSmtp();
  const env = { ...s3.env, S3_PREFIX: 'shop' };
  t = await startTestRuntime({ mode: 'all', smtpUrl: smtp.url, env });
  otherDir = mkdtempSync(join(tmpdir(), 'shop-test-other-'));
  other = await startTestRuntime({
    mode: 'web',
    smtpUrl: smtp.url,
    env,
    shareWith: { db: t.db, env: { dataDir: otherDir, authSecret: t.env.authSecret }, prefix: t.prefix },
  });
  bucket = new S3FileStore(
    { bucket: s3.bucket, prefix: 'shop', forcePathStyle: true, endpoint: s3.endpoint, region: 'us-east-1' },
    { credentials: S3RVER_KEYS },
  );
  await createOrPromoteAdmin(t.runtime.deps.orm, { email: 's3-admin@example.jp', password: 's3-admin-pass-123' });
  admin = new TestClient(t.app, '10.91.0.1');
  await admin.login('s3-admin@example.jp', 's3-admin-pass-123');
  adminOnOther = new TestClient(other.app, '10.91.0.2');
  await adminOnOther.login('s3-admin@example.jp', 's3-admin-pass-123');
}, 60_000);

afterAll(async () => {
  await other?.stop();
  await t?.stop();
  bucket?.close();
  await smtp?.close();
  await s3?.stop();
  rmSync(otherDir, { recursive: true, force: true });
  vi.unstubAllEnvs();
});

const sql = <T = Record<string, unknown>>(query: string, params: unknown[] = []) =>
  t.runtime.deps.orm.em.fork().execute<T[]>(query, params);

async function keysIn(prefix: string) {
  const keys: { key: string; size: number }[] = [];
  for await (const file of bucket.list(prefix)) keys.push({ key: file.key, size: file.size });
  return keys;
}

/** Every file under a directory, by relative path. */
const filesUnder = (dir: string) =>
  readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name));

describe('S3 file store end to end', () => {
  it('stores an uploaded picture in the bucket and serves it from every web process', async () => {
    expect(t.runtime.deps.files.driver).toBe('s3');
    const data = new FormData();
    data.append('name', 'S3 講習ライセンス');
    data.append('description', '画像はオブジェクトストレージにあります。');
    data.append('price', '5500');
    data.append('file[0]', new Blob([new Uint8Array(await png(640, 480))]), 'photo.png');
    const created = await admin.request('POST', '/api/licenses/create', { body: data });
    expect(created.status).toBe(201);
    const license = (await created.json()).license;
    const [picture] = license.pictures as { url: string; thumbnail_url: string }[];
    const name = (picture?.url ?? '').split('/').pop() as string;
    expect((await keysIn('uploads/licenses/')).map((f) => f.key).sort()).toEqual(
      [`uploads/licenses/${name}`, `uploads/licenses/${name.replace('.png', '-thumb.png')}`].sort(),
    );
    for (const client of [admin, adminOnOther]) {
      const res = await client.get(picture?.url as string);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('image/png');
      expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      const body = Buffer.from(await res.arrayBuffer());
      expect(res.headers.get('content-length')).toBe(String(body.length));
      expect(body.subarray(1, 4).toString()).toBe('PNG');
      expect((await client.get(picture?.thumbnail_url as string)).status).toBe(200);
    }
    expect((await admin.get('/uploads/licenses/00000000-0000-4000-8000-000000000000.png')).status).toBe(404);

    const removed = await admin.request('DELETE', `/api/licenses/${license.id}`);
    expect(removed.status).toBe(200);
    expect(await keysIn('uploads/licenses/')).toEqual([]);
    expect((await adminOnOther.get(picture?.url as string)).status).toBe(404);
  });

  it('a worker streams an export of several multipart parts into the bucket; every web process serves it', async () => {
    const license = await aLicense(t.runtime.deps.orm, { name: 'BLS' });
    // About 14 MB of CSV: more than one 8 MB part of the S3 driver's multipart upload.
    await manySales(t.runtime.deps.orm, {
      to: 120_000,
      licenseId: license,
      licenseName: 'BLS 一次救命処置講習ライセンス',
      lastName: '田中',
      firstName: '一郎',
      email: 'buyer-{n}@fire.example.jp',
      affiliationName: '〇〇消防局 第{n}分署',
      stripeSessionId: 'cs_s3_{n}',
    });
    const requested = await admin.post('/api/exports', {});
    expect(requested.status).toBe(202);
    const id = (await requested.json()).export.id as string;
    const done = await eventually(
      async () => {
        const row = (await (await admin.get(`/api/exports/${id}`)).json()).export;
        if (row.state === 'failed') throw new Error(row.error);
        return row.state === 'done' && row;
      },
      60_000,
      'the export done',
    );
    expect(done.row_count).toBe(120_000);
    const [stored] = await keysIn('exports/');
    expect(stored?.key).toBe(`exports/${id}.csv`);
    expect(stored?.size).toBeGreaterThan(8 * 1024 * 1024);
    for (const client of [admin, adminOnOther]) {
      const res = await client.get(done.download_url);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/csv; charset=UTF-8');
      expect(res.headers.get('content-disposition')).toContain('attachment');
      const body = Buffer.from(await res.arrayBuffer());
      expect(res.headers.get('content-length')).toBe(String(body.length));
      expect(body.length).toBe(stored?.size);
      expect(createHash('sha256').update(body).digest('hex')).toBe(done.sha256);
      expect(body.toString('utf8', 0, 200)).toContain('メールアドレス');
    }
    const [audits] = await sql<{ n: number }>(
      "select count(*)::int as n from audit_logs where action = 'sale.export.download' and target_id = ?",
      [id],
    );
    expect(audits?.n).toBe(2);
  }, 90_000);

  it('wrote nothing under either process’s DATA_DIR', () => {
    expect(filesUnder(t.env.dataDir)).toEqual([]);
    expect(filesUnder(otherDir)).toEqual([]);
  });
});
