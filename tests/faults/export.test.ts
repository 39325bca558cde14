import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { dbAt, manySales } from '../support/factories.ts';
import { until } from './support/flows.ts';
import { settle } from './support/ledger.ts';
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

const ROWS = 300_000;

describe('an export whose worker dies', () => {
  it('killed twice while running: the export ends done, or failed with a Japanese reason and re-run to done; never running, no temp file', async () => {
    services = await startServices();
    shop = await startFaultShop({ ...services });
    const s = shop;
    const licenseId = await s.createLicense('出力試験ライセンス');
    const seed = dbAt(s.databaseUrl);
    try {
      await manySales(seed, {
        to: ROWS,
        licenseId,
        lastName: '出力',
        email: 'export{n}@example.jp',
        affiliation: null,
        affiliationName: '',
        amount: 5500,
        stripeSessionId: 'cs_export_{n}',
        paidAt: { stepSeconds: -1 },
      });
    } finally {
      await seed.destroy();
    }
    const admin = await s.admin();
    const res = await admin.post('/api/exports', {});
    expect(res.status, await res.clone().text()).toBe(202);
    const { export: created } = (await res.json()) as { export: { id: string } };
    const state = async () =>
      (await s.sql<{ state: string; error: string | null }>('select state, error from exports where id = $1', [created.id]))[0];
    for (let kill = 1; kill <= 2; kill++) {
      await until(async () => (await state())?.state === 'running', 120_000, `the export running (kill ${kill})`, s);
      await Promise.all(s.workers.map((w) => w.kill()));
      await sleep(500);
      await Promise.all(s.workers.map((w) => w.start()));
    }
    const end = await until(
      async () => {
        const row = await state();
        return row && ['done', 'failed'].includes(row.state) ? row : undefined;
      },
      300_000,
      'the export to end',
      s,
    );
    expect(readdirSync(join(s.dataDir, 'exports')).filter((f) => f.endsWith('.tmp'))).toEqual([]);
    if (end.state === 'failed') {
      expect(end.error ?? '').toMatch(/[\u3040-\u30ff\u4e00-\u9fff]/);
      // An administrator re-runs it, and it completes.
      const retried = await admin.post(`/api/exports/${created.id}/retry`);
      expect(retried.status, await retried.clone().text()).toBeLessThan(300);
      await until(async () => (await state())?.state === 'done', 300_000, 'the re-run export', s);
    }
    const files = readdirSync(join(s.dataDir, 'exports'));
    expect(files.filter((f) => f.endsWith('.tmp'))).toEqual([]);
    expect(files).toContain(`${created.id}.csv`);
    expect(await settle(s, services.smtp, { failedJobs: 'any' }, 120_000)).toEqual([]);
  });
});
