import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

// Start in seconds (issue 32 item 4, docs/decisions/0020-pool-and-start-up.md): libraries a request may
// never need are loaded on first use. Checked by what a process loaded, not by how long it took.

const root = resolve(import.meta.dirname, '../..');
const LAZY = [
  '@electric-sql/pglite',
  '@mikro-orm/pglite',
  '@sentry/node',
  '@aws-sdk/client-s3',
  '@aws-sdk/lib-storage',
  'pdfkit',
  'fontkit',
  'qrcode',
  '@bull-board/api',
  '@bull-board/hono',
  '@zxcvbn-ts/language-common',
  '@zxcvbn-ts/core',
];

/** The modules src/main.ts imports statically, read from it (whatever else it comes to import). */
function mainImports(): string[] {
  const source = readFileSync(resolve(root, 'src/main.ts'), 'utf8');
  return [...source.matchAll(/^import [^;]*? from '(\.\/[^']+)';$/gm)].map((m) => resolve(root, 'src', m[1] as string));
}

/** Runs `script` in a web process's module graph (instrument.ts first, as `npm run start:web`): its output. */
async function inWebGraph(script: string): Promise<{ atStart: string[]; afterUse: string[] }> {
  const imports = mainImports()
    .map((file) => `await import(${JSON.stringify(file)});`)
    .join('\n');
  const env: NodeJS.ProcessEnv = { ...process.env, NODE_ENV: 'production' };
  env.SENTRY_DSN = undefined;
  env.S3_BUCKET = undefined;
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [
      '--import',
      './tests/support/record-packages.ts',
      '--import',
      './src/instrument.ts',
      '--input-type=module',
      '--eval',
      `${imports}
       const atStart = [...globalThis.loadedPackages];
       ${script}
       console.log(JSON.stringify({ atStart, afterUse: [...globalThis.loadedPackages] }));
       process.exit(0);`,
    ],
    { cwd: root, env, timeout: 60_000 },
  );
  return JSON.parse(stdout.trim().split('\n').at(-1) as string);
}

describe('a web process without SENTRY_DSN or S3_BUCKET', () => {
  it('starts without error reporting, the S3 SDK, PDF and QR rendering, the queue dashboard or the password dictionaries, and loads each on first use (the dashboard: not even once built)', async () => {
    const { atStart, afterUse } = await inWebGraph(`
      const { createFileStore } = await import(${JSON.stringify(resolve(root, 'src/storage/open-store.ts'))});
      await (await createFileStore({ dataDir: '/tmp/shop-start-up-libraries' })).close();
      const { renderReceiptPdf } = await import(${JSON.stringify(resolve(root, 'src/modules/sales/receipt-pdf.ts'))});
      const { isCommonPassword } = await import(${JSON.stringify(resolve(root, 'src/modules/accounts/password-policy.ts'))});
      const { loadPasswordRater } = await import(${JSON.stringify(resolve(root, 'src/lib/password-strength.ts'))});
      const { createQueues } = await import(${JSON.stringify(resolve(root, 'src/events/queues.ts'))});
      const { queueDashboard } = await import(${JSON.stringify(resolve(root, 'src/http/queue-dashboard.ts'))});
      const { Redis } = await import('ioredis');
      const redis = new Redis({ lazyConnect: true });
      const dashboard = queueDashboard(createQueues(redis, 'start-up-libraries'), { appOrigin: 'http://127.0.0.1' });
      const at = new Date();
      const pdf = await renderReceiptPdf({ receiptNumber: 'R-00000001', addressee: '山田 太郎 様', proviso: 'ライセンス代として',
        licenseName: 'テスト', amount: 1100, paidAt: at, issuedAt: at, issueCount: 1, firstIssuedAt: at, paymentMethod: null,
        saleId: 1, orderNumber: null });
      if (pdf.subarray(0, 5).toString() !== '%PDF-') throw new Error('not a PDF');
      if (!isCommonPassword('password')) throw new Error('the common passwords are not checked');
      await loadPasswordRater();
      await redis.quit().catch(() => undefined);
    `);
    expect(atStart.filter((name) => LAZY.includes(name))).toEqual([]);
    // The check is meaningful: the web graph itself was loaded.
    expect(atStart).toEqual(expect.arrayContaining(['hono', '@mikro-orm/core', 'better-auth', 'bullmq']));
    expect(afterUse).toEqual(expect.arrayContaining(['pdfkit', 'fontkit', '@zxcvbn-ts/language-common', '@zxcvbn-ts/core']));
    expect(afterUse).not.toContain('@sentry/node');
    expect(afterUse).not.toContain('@aws-sdk/client-s3');
    expect(afterUse).not.toContain('@bull-board/api');
  }, 90_000);
});
