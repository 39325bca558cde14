import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createOrPromoteAdmin } from '../../src/modules/accounts/index.ts';
import { handlers } from '../../workers/handlers.ts';
import { TestClient } from '../support/http-client.ts';
import { startTestRuntime, type TestRuntime } from '../support/runtime.ts';

/**
 * The training-system CSV opened as an administrator would: in a real spreadsheet program
 * (LibreOffice Calc, headless) with formula evaluation on, in both encodings. The sheet is saved
 * back as CSV to read what each cell became.
 */
const run = promisify(execFile);
let t: TestRuntime;
let admin: TestClient;
const dir = mkdtempSync(join(tmpdir(), 'sheet-'));

beforeAll(async () => {
  t = await startTestRuntime({ env: { EXPORT_GROUP_NAME: '@研修' } });
  await createOrPromoteAdmin(t.runtime.deps.orm, { email: 'sheet-admin@example.jp', password: 'sheet-admin-pass' });
  admin = new TestClient(t.app, '10.99.0.1');
  await admin.login('sheet-admin@example.jp', 'sheet-admin-pass');
  const em = t.runtime.deps.orm.em.fork();
  const [license] = await em.execute(
    `insert into licenses (name, description, price, created_at, updated_at) values ('=HYPERLINK("http://evil.example")', '', 1000, now(), now()) returning id`,
  );
  for (const [last, first, email] of [
    ['=1+2', '+81-3', '-5@example.jp'],
    ['@SUM(A1)', '波〜−‖—', 'wave@example.jp'],
    ['＝1+2', '¢£¬髙', 'wide@example.jp'],
  ]) {
    await em.execute(
      `insert into sales (buyer_last_name, buyer_first_name, buyer_email, buyer_affiliation, buyer_affiliation_name, license_id, license_name,
         amount, currency, checkout_session_id, stripe_session_id, paid_at, status, created_at, updated_at)
       values (?, ?, ?, 4, '-署', ?, '=HYPERLINK("http://evil.example")', 1000, 'jpy', gen_random_uuid(), 'cs_sheet_' || md5(random()::text),
         '2026-04-01T01:00:00Z', 0, now(), now())`,
      [last, first, email, license?.id],
    );
  }
}, 60_000);
afterAll(async () => {
  await t?.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function exportFile(encoding: 'utf-8' | 'shift_jis'): Promise<Buffer> {
  const res = await admin.post('/api/exports', { encoding });
  expect(res.status).toBe(202);
  const { export: created } = await res.json();
  const event = {
    id: randomUUID(),
    name: 'ExportRequested' as const,
    occurredAt: new Date().toISOString(),
    payload: { exportId: created.id },
  };
  await handlers.ExportRequested(t.runtime.jobContext(), event);
  return Buffer.from(await (await admin.get(`/api/exports/${created.id}/download`)).arrayBuffer());
}

/** Opens `csv` in LibreOffice Calc (formulas evaluated), saves the sheet as UTF-8 CSV and returns its rows. */
async function openInCalc(name: string, csv: Buffer, charset: number): Promise<string[][]> {
  const source = join(dir, `${name}.csv`);
  writeFileSync(source, csv);
  const profile = `-env:UserInstallation=file://${join(dir, `profile-${name}`)}`;
  // Tokens: comma, double quote, charset (76 UTF-8, 60 Windows-932), from line 1, …, evaluate formulas.
  await run(
    'soffice',
    [
      profile,
      '--headless',
      `--infilter=CSV:44,34,${charset},1,,1041,false,true,false,false,false,-1,true`,
      '--convert-to',
      'ods',
      '--outdir',
      join(dir, name),
      source,
    ],
    { timeout: 120_000 },
  );
  const sheet = join(dir, name, `${name}.ods`);
  await run(
    'soffice',
    [
      profile,
      '--headless',
      '--convert-to',
      'csv:Text - txt - csv (StarCalc):44,34,76,1,,0,false,true,false,false,false,-1',
      '--outdir',
      join(dir, `${name}-values`),
      sheet,
    ],
    { timeout: 120_000 },
  );
  const out = readdirSync(join(dir, `${name}-values`)).find((f) => f.endsWith('.csv')) as string;
  return readFileSync(join(dir, `${name}-values`, out), 'utf8')
    .split(/\r?\n/)
    .filter(Boolean)
    .map((line) => line.split(','));
}

it('keeps every formula-looking cell as text and every CP932 character intact, in both encodings', async () => {
  // A plain `=1+2` cell is evaluated by this very setup: the check can fail.
  const control = await openInCalc('control', Buffer.from('a,b\r\n=1+2,x\r\n'), 76);
  expect(control[1]?.[0]).toBe('3');

  for (const [encoding, charset] of [
    ['utf-8', 76],
    ['shift_jis', 60],
  ] as const) {
    const rows = await openInCalc(encoding, await exportFile(encoding), charset);
    const byEmail = new Map(rows.slice(1).map((row) => [row[0]?.replace(/^'/, ''), row]));
    const first = byEmail.get('-5@example.jp');
    expect(first?.slice(0, 5), encoding).toEqual(["'-5@example.jp", "'=1+2", "'+81-3", '日本語', "'@研修"]);
    expect(first?.[6]).toBe("'-署");
    expect(rows.every((row) => row.every((cell) => cell !== '3'))).toBe(true);
    expect(byEmail.get('wave@example.jp')?.[1]).toBe("'@SUM(A1)");
    expect(byEmail.get('wave@example.jp')?.[2]).toBe(encoding === 'utf-8' ? '波〜−‖—' : '波～－∥―');
    expect(byEmail.get('wide@example.jp')?.slice(1, 3)).toEqual(["'＝1+2", encoding === 'utf-8' ? '¢£¬髙' : '￠￡￢髙']);
  }
}, 300_000);
