/**
 * npm run bench — speed and memory at a real shop's size, on this machine (never part of npm test).
 *
 * Seeds a fresh database with SQL (100,000 members, 1,000 licences, 1,000,000 sales), starts the shop
 * as separate web and worker processes (NODE_ENV=production) and a bare Hono hello-world, and loads
 * them from loopback with autocannon in its own process, in interleaved rounds. The export is timed
 * against PostgreSQL's own COPY of the same rows. Prints a table and one JSON line per figure, each
 * ratio with its target; exits non-zero when a target is missed.
 *
 * Lean requests (issue 22 item 9, docs/decisions/0037-lean-requests.md): a second web process with its
 * caches off (SHOP_CACHES=off) against a minimal Hono + node-postgres server sending the same SQL and
 * answering the same bytes (scripts/lean-reference.ts), for a member's catalogue and the administrators'
 * sales list; the bodies are compared byte for byte first. The ratio is reported, with no target since
 * decision 0039 withdrew the ≥ 0.9 goal. BENCH_ONLY=lean measures only these;
 * BENCH_ONLY=export only the export against COPY.
 *
 * Start-up (issue 32 item 4, scripts/start-up.ts): exec to /readyz 200 of a web process and to a
 * worker's metrics port, the minimum of 3 starts each, ≤ 2.5 s; measured first, before any load.
 * BENCH_ONLY=start-up measures only these, on a database that is only migrated (no seeding).
 *
 * 受注CSV (issue 33 item 1, scripts/bench-order-csv.ts): a month of 100,000 sales downloaded from the
 * web process, ≤ 5 s, with its memory growth; measured last, after the month is added to the database.
 * BENCH_ONLY=order-csv seeds only the members, licences and that month, and measures only this.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { Client } from 'pg';
import { loadEnv } from '../src/config/env.ts';
import { migrate } from '../src/db/orm.ts';
import { openDatabase } from '../src/host/modules.ts';
import { createOrPromoteAdmin } from '../src/modules/accounts/index.ts';
import { totp } from '../tests/support/two-factor.ts';
import { ORDER_MONTH, orderCsvFigures, seedOrderMonth } from './bench-order-csv.ts';
import { measureFirstPage } from './first-page-js.ts';
import { lighthouseScores } from './lighthouse.ts';
import { startUpFigures } from './start-up.ts';

const root = resolve(import.meta.dirname, '..');
const PG = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const REDIS = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const SCALE = { members: 100_000, licences: 1_000, sales: 1_000_000 };
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = 16;
const TARGETS = {
  listVsHello: 0.02,
  catalogueVsHello: 0.05,
  singleP50Ms: 50,
  deepVsFirst: 1.5,
  exportVsCopy: 0.35,
  workerGrowthMb: 150,
};
/** BENCH_ONLY=lean: only the lean-request figures (no worker, export, Lighthouse or first page). */
const ONLY_LEAN = process.env.BENCH_ONLY === 'lean';
/** BENCH_ONLY=export: only the export against COPY (one web and one worker process, no load). */
const ONLY_EXPORT = process.env.BENCH_ONLY === 'export';
/** BENCH_ONLY=start-up: only the start-up times, on a migrated, empty database. */
const ONLY_START_UP = process.env.BENCH_ONLY === 'start-up';
/** BENCH_ONLY=order-csv: only the 受注CSV of a month (one web process; no million sales, no worker). */
const ONLY_ORDER_CSV = process.env.BENCH_ONLY === 'order-csv';
/** Interleaved rounds of the lean-request figures; each ratio is the median of the rounds' ratios. */
const LEAN_ROUNDS = Number(process.env.BENCH_LEAN_ROUNDS ?? 9);
/** Seconds of each lean-request run: short runs, many rounds, so a neighbour's burst of load touches few. */
const LEAN_SECONDS = Number(process.env.BENCH_LEAN_SECONDS ?? 3);

// BENCH_DB reuses a database an earlier run kept (BENCH_KEEP=1), skipping the seeding.
const reuse = process.env.BENCH_DB;
const dbName = reuse ?? `shop_bench_${randomBytes(4).toString('hex')}`;
const dbUrl = new URL(PG);
dbUrl.pathname = `/${dbName}`;
const children: ChildProcess[] = [];
const lines: Record<string, unknown>[] = [];
const report = (row: Record<string, unknown>) => {
  lines.push(row);
  console.log(JSON.stringify(row));
};

async function sql<T = Record<string, unknown>>(url: string, text: string, params: unknown[] = []): Promise<T[]> {
  const c = new Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query(text, params)).rows as T[];
  } finally {
    await c.end();
  }
}

async function freePort(): Promise<number> {
  const { createServer } = await import('node:net');
  return new Promise((done) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => done(port));
    });
  });
}

/** Starts a process; ready when `url` answers 200 (or, without one, when it has run 3 s). */
async function start(args: string[], env: Record<string, string>, url?: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, args, {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  children.push(child);
  let tail = '';
  child.stderr?.on('data', (chunk) => (tail = (tail + chunk).slice(-4_000)));
  let exited = false;
  child.once('exit', () => (exited = true));
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (exited) throw new Error(`${args.join(' ')} exited:\n${tail}`);
    if (!url) {
      await sleep(3_000);
      if (!exited) return child;
      continue;
    }
    if ((await fetch(url).catch(() => null))?.ok) return child;
    if (Date.now() > deadline) throw new Error(`${args.join(' ')} did not answer ${url}:\n${tail}`);
    await sleep(200);
  }
}

/** CPU seconds (user + system) a process has used so far, from /proc/<pid>/stat (clock ticks of 1/100 s). */
const cpuSeconds = (pid: number | undefined) => {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
};

const rssMb = (pid: number | undefined) => {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Math.round(Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024);
};

interface Load {
  name: string;
  rps: number;
  p50: number;
  p97_5: number;
  p99: number;
  errors: number;
}

/** autocannon in its own process: CONNECTIONS connections for SECONDS seconds. */
async function autocannon(name: string, url: string, headers: Record<string, string> = {}, seconds = SECONDS): Promise<Load> {
  const args = ['-c', String(CONNECTIONS), '-d', String(seconds), '-j'];
  for (const [key, value] of Object.entries(headers)) args.push('-H', `${key}=${value}`);
  args.push(url);
  const child = spawn(resolve(root, 'node_modules/.bin/autocannon'), args, { stdio: ['ignore', 'pipe', 'ignore'] });
  let out = '';
  child.stdout.on('data', (chunk) => (out += chunk));
  await new Promise((done) => child.once('exit', done));
  const result = JSON.parse(out);
  const row = {
    name,
    rps: Math.round(result.requests.average),
    p50: result.latency.p50,
    p97_5: result.latency.p97_5,
    p99: result.latency.p99,
    errors: result.errors + result.non2xx,
  };
  report({ kind: 'load', ...row });
  return row;
}

/** One request at a time: the latency a single administrator sees. */
async function single(name: string, url: string, headers: Record<string, string>, n = 30) {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    const res = await fetch(url, { headers });
    await res.arrayBuffer();
    if (!res.ok) throw new Error(`${name}: ${res.status}`);
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  const p50 = +(times[Math.floor(n / 2)] ?? 0).toFixed(1);
  report({ kind: 'single', name, p50 });
  return p50;
}

async function seed() {
  const t0 = performance.now();
  await sql(PG, `create database ${dbName}`);
  const orm = await openDatabase(loadEnv({ DATABASE_URL: dbUrl.toString() }));
  await migrate(orm);
  await createOrPromoteAdmin(orm, { email: 'bench-admin@example.jp', password: 'bench-admin-pass' });
  await orm.close(true);
  const url = dbUrl.toString();
  // 100 surnames × 100 given names, e.g. 佐藤, 山田 / 太郎, 花子: about ten members share a full name.
  const name = (firsts: string, seconds: string, n: string) =>
    `substr('${firsts}', 1 + (${n}) % 10, 1) || substr('${seconds}', 1 + ((${n}) / 10) % 10, 1)`;
  const last = (n: string) => name('佐鈴高田伊渡山中小加', '藤木橋田村辺本川林野', n);
  const first = (n: string) => name('太健翔結美陽拓優花真', '郎子斗菜希一輔奈也樹', `(${n}) / 100`);
  const uid = (n: string) => `'00000000-0000-4000-8000-' || lpad((${n})::text, 12, '0')`;
  await sql(
    url,
    `insert into users (id, email, email_verified, name, last_name, first_name, role, affiliation, affiliation_name, distribution, banned, created_at, updated_at)
     select ${uid('g')}, 'member' || g || '@example.jp', true, '', ${last('g')}, ${first('g')}, 'user',
            1 + g % 6, '〇〇署' || (g % 500), true, false, now() - (g || ' minutes')::interval, now()
     from generate_series(1, ${SCALE.members}) g`,
  );
  await sql(
    url,
    `insert into licenses (name, description, price, created_at, updated_at)
     select 'ライセンス ' || g, '説明', 1000 + g, now(), now() from generate_series(1, ${SCALE.licences}) g`,
  );
  if (ONLY_ORDER_CSV) {
    await seedOrderMonth((text, params) => sql(url, text, params), SCALE.members);
    await sql(url, 'vacuum analyze');
    report({
      kind: 'seed',
      members: SCALE.members,
      licences: SCALE.licences,
      sales: ORDER_MONTH.sales,
      seconds: +((performance.now() - t0) / 1000).toFixed(1),
    });
    return;
  }
  await sql(
    url,
    `insert into sales (user_id, buyer_last_name, buyer_first_name, buyer_email, buyer_affiliation, buyer_affiliation_name,
       license_id, license_name, amount, currency, checkout_session_id, stripe_session_id, paid_at, refunded_at, status, created_at, updated_at,
       order_number)
     select ${uid('1 + g % 100000')}, ${last('1 + g % 100000')}, ${first('1 + g % 100000')},
            'member' || (1 + g % 100000) || '@example.jp', 1 + g % 6, '〇〇署', 1 + g % ${SCALE.licences}, 'ライセンス ' || (1 + g % ${SCALE.licences}),
            11000, 'jpy', gen_random_uuid(), 'cs_bench_' || g, now() - (g || ' seconds')::interval,
            case when g % 100 = 0 then now() else null end, (g % 3), now(), now(),
            -- 注文番号 of the real shape, unique by construction (g in base32) rather than drawn at random
            'LS-2611-' || (select string_agg(substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', ((g >> (5 * i)) & 31) + 1, 1), '' order by i desc)
                           from generate_series(0, 5) i)
     from generate_series(1, ${SCALE.sales}) g`,
  );
  await sql(url, 'vacuum analyze');
  report({ kind: 'seed', ...SCALE, seconds: +((performance.now() - t0) / 1000).toFixed(1) });
}

async function copyRows(where: string): Promise<{ rows: number; seconds: number }> {
  const t0 = performance.now();
  const child = spawn('psql', [
    dbUrl.toString(),
    '-Atqc',
    `copy (select s.id, s.buyer_email, s.buyer_last_name, s.buyer_first_name, s.buyer_affiliation, s.buyer_affiliation_name,
       s.buyer_affiliation_other, s.license_name, s.paid_at from sales s ${where}) to stdout with (format csv)`,
  ]);
  let rows = 0;
  child.stdout.on('data', (chunk: Buffer) => {
    for (const byte of chunk) if (byte === 10) rows++;
  });
  await new Promise((done) => child.once('exit', done));
  return { rows, seconds: (performance.now() - t0) / 1000 };
}

/**
 * Signs the bench administrator in on `base` and enrols them in two-factor (required before any admin
 * call, docs/decisions/0027); a reused database's earlier enrolment is dropped first. Their cookies.
 */
async function signInAdmin(base: string): Promise<{ cookie: string; csrfCookie: string; sessionCookie: string }> {
  await sql(
    dbUrl.toString(),
    `delete from two_factors where user_id = (select id from users where email = 'bench-admin@example.jp');
     update users set two_factor_enabled = false where email = 'bench-admin@example.jp'`,
  );
  const csrf = await fetch(`${base}/api/csrf-token`);
  const token = csrf.headers.getSetCookie()[0]?.split(';')[0] ?? '';
  const login = await fetch(`${base}/api/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', cookie: token, 'x-xsrf-token': decodeURIComponent(token.split('=')[1] ?? '') },
    body: JSON.stringify({ email: 'bench-admin@example.jp', password: 'bench-admin-pass' }),
  });
  if (login.status !== 200) throw new Error(`bench administrator sign-in: ${login.status} ${await login.text()}`);
  let session = login.headers.getSetCookie().map((c) => c.split(';')[0]);
  // CSRF tokens are bound to the session: take a fresh one for the signed-in session.
  const fresh = await fetch(`${base}/api/csrf-token`, { headers: { cookie: [token, ...session].join('; ') } });
  let csrfCookie = fresh.headers.getSetCookie()[0]?.split(';')[0] ?? token;
  const post = (path: string, body: unknown) =>
    fetch(`${base}${path}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        cookie: [csrfCookie, ...session].join('; '),
        'x-xsrf-token': decodeURIComponent(csrfCookie.split('=')[1] ?? ''),
      },
      body: JSON.stringify(body),
    });
  const setup = await post('/api/me/two-factor/setup', { password: 'bench-admin-pass' });
  if (setup.status !== 200) throw new Error(`two-factor setup: ${setup.status} ${await setup.text()}`);
  const { secret } = (await setup.json()) as { secret: string };
  const enabled = await post('/api/me/two-factor/enable', { code: totp(secret) });
  if (enabled.status !== 200) throw new Error(`two-factor enrolment: ${enabled.status} ${await enabled.text()}`);
  // Enabling replaces the session (and so its CSRF token).
  const rotated = enabled.headers.getSetCookie().map((c) => c.split(';')[0] as string);
  session = rotated.filter((c) => c.includes('session_token'));
  csrfCookie = rotated.find((c) => c.startsWith('XSRF-TOKEN=')) ?? csrfCookie;
  const sessionCookie = session[0]?.split('=')[0] ?? '';
  return { cookie: [csrfCookie, ...session].join('; '), csrfCookie, sessionCookie };
}

/** A signed-in member (the first seeded one): a session row and its signed cookie, as better-auth writes them. */
async function memberCookie(sessionCookie: string, secret: string): Promise<string> {
  const token = randomBytes(24).toString('base64url');
  await sql(
    dbUrl.toString(),
    `insert into sessions (id, token, user_id, expires_at, created_at, updated_at, last_active_at)
     values ($1, $2, '00000000-0000-4000-8000-000000000001', now() + interval '7 days', now(), now(), now())`,
    [randomUUID(), token],
  );
  const signature = createHmac('sha256', secret).update(token).digest('base64');
  return `${sessionCookie}=${encodeURIComponent(`${token}.${signature}`)}`;
}

interface Verdict {
  figure: string;
  ratio: number;
  target: string;
  met: boolean;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
};

/**
 * Lean requests: the shop with its caches off against the minimal reference, for a member's catalogue
 * and the administrators' sales list. The bodies must be byte-identical (else this throws); then
 * LEAN_ROUNDS interleaved rounds (the order flips every round), each giving one ratio per endpoint.
 */
async function leanFigures(
  shop: string,
  reference: string,
  cookies: { member: string; admin: string },
  pids: { shop: number | undefined; minimal: number | undefined },
): Promise<Verdict[]> {
  const differing = new Set<string>();
  // BENCH_LEAN_ONLY=catalogue or `sales list`: one endpoint (a profile of one kind of request).
  const all = [
    { name: 'catalogue', path: '/api/licenses?page=1', cookie: cookies.member },
    { name: 'sales list', path: '/api/sales?page=1', cookie: cookies.admin },
  ].filter(({ name }) => !process.env.BENCH_LEAN_ONLY || name === process.env.BENCH_LEAN_ONLY);
  for (const { name, path, cookie } of all) {
    const [a, b] = await Promise.all([shop, reference].map((base) => fetch(`${base}${path}`, { headers: { cookie } })));
    const [bodyA, bodyB] = await Promise.all([a, b].map(async (res) => Buffer.from(await (res as Response).arrayBuffer())));
    if (a?.status !== 200 || b?.status !== a.status || !bodyA?.equals(bodyB as Buffer)) {
      const at = [...(bodyA ?? [])].findIndex((byte, i) => byte !== bodyB?.[i]);
      // The reference must follow the shop's statements and answer (scripts/lean-reference.ts): until it
      // does, this figure is not measured — and not met — while the rest of the bench goes on.
      console.error(
        `${name}: the minimal reference does not answer what the shop answers (status ${a?.status} / ${b?.status}, ` +
          `${bodyA?.length} / ${bodyB?.length} bytes, first difference at byte ${at}):\n` +
          `shop:      ${bodyA?.subarray(Math.max(0, at - 80), at + 80).toString()}\n` +
          `reference: ${bodyB?.subarray(Math.max(0, at - 80), at + 80).toString()}`,
      );
      differing.add(name);
      continue;
    }
    report({ kind: 'lean-identical', name, status: a.status, bytes: bodyA.length });
    // Warm both up (JIT, pools) before the first measured round.
    for (const base of [shop, reference]) {
      for (let i = 0; i < 300; i++) await (await fetch(`${base}${path}`, { headers: { cookie } })).arrayBuffer();
    }
  }
  const endpoints = all.filter(({ name }) => !differing.has(name));
  const ratios: Record<string, number[]> = Object.fromEntries(endpoints.map(({ name }) => [name, []]));
  const rps: Record<string, { shop: number[]; minimal: number[] }> = Object.fromEntries(
    endpoints.map(({ name }) => [name, { shop: [], minimal: [] }]),
  );
  // The server process's CPU milliseconds per request: steadier than req/s on a machine whose two cores
  // are shared with the load generator, PostgreSQL and neighbours (a descheduled server loses requests).
  const cpuMs: Record<string, { shop: number[]; minimal: number[] }> = Object.fromEntries(
    endpoints.map(({ name }) => [name, { shop: [], minimal: [] }]),
  );
  for (let round = 0; round < LEAN_ROUNDS; round++) {
    for (const { name, path, cookie } of endpoints) {
      const order = round % 2 === 0 ? (['shop', 'minimal'] as const) : (['minimal', 'shop'] as const);
      const runs: Record<string, Load> = {};
      for (const who of order) {
        const cpuBefore = cpuSeconds(pids[who]);
        runs[who] = await autocannon(
          `${name} (no caches): ${who === 'shop' ? 'shop' : 'minimal reference'}`,
          `${who === 'shop' ? shop : reference}${path}`,
          { cookie },
          LEAN_SECONDS,
        );
        const requests = (runs[who] as Load).rps * LEAN_SECONDS;
        if (requests > 0) cpuMs[name]?.[who].push(((cpuSeconds(pids[who]) - cpuBefore) * 1000) / requests);
      }
      const [s, m] = [runs.shop as Load, runs.minimal as Load];
      if (s.errors || m.errors) throw new Error(`${name}: ${s.errors} errors from the shop, ${m.errors} from the reference`);
      ratios[name]?.push(s.rps / m.rps);
      rps[name]?.shop.push(s.rps);
      rps[name]?.minimal.push(m.rps);
    }
  }
  const unmeasured = [...differing].map((name) => ({
    figure: `${name} vs minimal (no caches): not measured, the reference answers differently`,
    ratio: 0,
    target: 'the same answer',
    met: false,
  }));
  return unmeasured.concat(
    endpoints.map(({ name }) => {
      const ratio = +median(ratios[name] ?? []).toFixed(3);
      const figures = rps[name] ?? { shop: [], minimal: [] };
      report({
        kind: 'lean',
        name,
        ratios: (ratios[name] ?? []).map((r) => +r.toFixed(3)),
        medianRatio: ratio,
        shopMedianRps: median(figures.shop),
        minimalMedianRps: median(figures.minimal),
        shopCpuMsPerRequest: +median(cpuMs[name]?.shop ?? []).toFixed(3),
        minimalCpuMsPerRequest: +median(cpuMs[name]?.minimal ?? []).toFixed(3),
      });
      return {
        figure: `${name} vs minimal (no caches, req/s, median of ${LEAN_ROUNDS} rounds)`,
        ratio,
        // Reported, not a target: the ≥ 0.9 goal was withdrawn (docs/decisions/0039-libraries-as-meant.md).
        target: 'reported',
        met: true,
      };
    }),
  );
}

/** Runs of the export and of COPY: each figure is the best run (a neighbour's burst of load touches one). */
const EXPORT_RUNS = Number(process.env.BENCH_EXPORT_RUNS ?? 2);

/**
 * The export of every 出力待ち/処理中 sale that is not refunded and has no refund under way, through
 * the web and worker processes, timed from the export's creation to its last row, against
 * PostgreSQL's COPY of the same rows (same WHERE), in EXPORT_RUNS alternating runs; the best of each
 * is compared (the first export also warms the worker, as a shop's has). The worker's memory is
 * sampled from before the first run to the end of the last.
 */
async function exportFigures(
  base: string,
  auth: Record<string, string>,
  csrfCookie: string,
  worker: ChildProcess,
): Promise<Verdict[]> {
  const before = rssMb(worker.pid);
  let peak = before;
  let progressSeen = false;
  let allDone = true;
  let bestExport = 0;
  let bestCopy = 0;
  for (let run = 0; run < EXPORT_RUNS; run++) {
    const copy = await copyRows('where s.status in (0, 1) and s.refunded_at is null and s.refund_requested_at is null');
    const created = await fetch(`${base}/api/exports`, {
      method: 'POST',
      headers: {
        ...auth,
        'content-type': 'application/json',
        'x-xsrf-token': decodeURIComponent(csrfCookie.split('=')[1] ?? ''),
      },
      body: JSON.stringify({ encoding: 'utf-8' }),
    });
    if (!created.ok) throw new Error(`POST /api/exports answered ${created.status}: ${await created.text()}`);
    const { export: job } = await created.json();
    let state = job;
    while (state.state !== 'done' && state.state !== 'failed') {
      await sleep(200);
      peak = Math.max(peak, rssMb(worker.pid));
      state = (await (await fetch(`${base}/api/exports/${job.id}`, { headers: auth })).json()).export;
      if (state.state === 'running' && state.row_count > 0 && state.row_count < (state.total_rows ?? 0)) progressSeen = true;
    }
    allDone &&= state.state === 'done' && state.row_count === copy.rows;
    const exportSeconds = (new Date(state.finished_at).getTime() - new Date(state.created_at).getTime()) / 1000;
    const exportRps = state.row_count / exportSeconds;
    const copyRps = copy.rows / copy.seconds;
    bestExport = Math.max(bestExport, exportRps);
    bestCopy = Math.max(bestCopy, copyRps);
    report({
      kind: 'export',
      run,
      state: state.state,
      rows: state.row_count,
      seconds: +exportSeconds.toFixed(2),
      rowsPerSecond: Math.round(exportRps),
      progressSeen,
    });
    report({ kind: 'copy', run, rows: copy.rows, seconds: +copy.seconds.toFixed(2), rowsPerSecond: Math.round(copyRps) });
  }
  report({ kind: 'worker-memory', beforeMb: before, peakMb: peak, growthMb: peak - before });
  return [
    {
      figure: `export vs COPY (rows/s, best of ${EXPORT_RUNS} each)`,
      ratio: +(bestExport / bestCopy).toFixed(3),
      target: `≥ ${TARGETS.exportVsCopy}`,
      met: allDone && bestExport / bestCopy >= TARGETS.exportVsCopy,
    },
    {
      figure: 'worker memory growth during the export (MB)',
      ratio: peak - before,
      target: `≤ ${TARGETS.workerGrowthMb}`,
      met: peak - before <= TARGETS.workerGrowthMb,
    },
    { figure: 'export progress visible while it runs', ratio: progressSeen ? 1 : 0, target: 'seen', met: progressSeen },
  ];
}

/** A migrated database with nothing in it (BENCH_ONLY=start-up). */
async function migrateOnly() {
  await sql(PG, `create database ${dbName}`);
  const orm = await openDatabase(loadEnv({ DATABASE_URL: dbUrl.toString() }));
  await migrate(orm);
  await orm.close(true);
}

function printVerdicts(verdicts: Verdict[]) {
  console.log('\n| figure | value | target | met |\n|---|---|---|---|');
  for (const v of verdicts) console.log(`| ${v.figure} | ${v.ratio} | ${v.target} | ${v.met ? 'yes' : 'NO'} |`);
  for (const v of verdicts) report({ kind: 'target', ...v });
}

async function main() {
  if (ONLY_START_UP && !reuse) await migrateOnly();
  else if (!reuse) await seed();
  const [webPort, helloPort, leanPort, referencePort] = [await freePort(), await freePort(), await freePort(), await freePort()];
  // The bench's own Redis db (13), emptied: an earlier run's rate-limit counters (sign-ins, two-factor
  // set-ups of the bench administrator) would refuse this run's sign-in with 429.
  const redis = new Redis(`${REDIS.replace(/\/\d*$/, '')}/13`);
  await redis.flushdb();
  await redis.quit();
  const env = {
    NODE_ENV: 'production',
    DATABASE_URL: dbUrl.toString(),
    REDIS_URL: `${REDIS.replace(/\/\d*$/, '')}/13`,
    SMTP_URL: 'smtp://127.0.0.1:2525',
    STRIPE_SECRET_KEY: 'sk_test_bench',
    STRIPE_WEBHOOK_SECRET: 'whsec_bench',
    AUTH_SECRET: randomBytes(32).toString('hex'),
    DATA_DIR: `/tmp/${dbName}`,
    EXPORT_GROUP_NAME: 'ベンチ研修',
    LOG_LEVEL: 'warn',
    APP_URL: `http://127.0.0.1:${webPort}`,
  };
  const base = `http://127.0.0.1:${webPort}`;
  const leanBase = `http://127.0.0.1:${leanPort}`;
  const referenceBase = `http://127.0.0.1:${referencePort}`;
  // Start-up first, while nothing else of the bench runs.
  const startUp = ONLY_LEAN || ONLY_EXPORT || ONLY_ORDER_CSV ? [] : await startUpFigures(env);
  for (const figure of startUp) report({ kind: 'start-up', ...figure });
  const startUpVerdicts: Verdict[] = startUp.map(({ runs: _runs, cpuMs: _cpuMs, ...verdict }) => verdict);
  if (ONLY_START_UP) {
    printVerdicts(startUpVerdicts);
    process.exitCode = startUpVerdicts.every((v) => v.met) ? 0 : 1;
    return;
  }
  if (ONLY_ORDER_CSV) {
    const web = await start(
      [
        ...(process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : []),
        'src/main.ts',
        'web',
      ],
      { ...env, PORT: String(webPort) },
      `${base}/healthz`,
    );
    const { cookie } = await signInAdmin(base);
    await seedOrderMonth((text, params) => sql(dbUrl.toString(), text, params), SCALE.members);
    const verdicts = await orderCsvFigures(
      base,
      cookie,
      web.pid as number,
      report,
      (text, params) => sql(dbUrl.toString(), text, params),
      Number(process.env.BENCH_ORDER_CSV_RUNS ?? 2),
    );
    printVerdicts(verdicts);
    process.exitCode = verdicts.every((v) => v.met) ? 0 : 1;
    return;
  }
  if (ONLY_EXPORT) {
    await start(['src/main.ts', 'web'], { ...env, PORT: String(webPort) }, `${base}/healthz`);
    const { cookie, csrfCookie } = await signInAdmin(base);
    // BENCH_CPU_PROF profiles the worker building the export.
    const worker = await start(
      [
        ...(process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : []),
        '--max-old-space-size=512',
        '--max-semi-space-size=16',
        'src/main.ts',
        'worker',
      ],
      env,
    );
    const verdicts = await exportFigures(base, { cookie }, csrfCookie, worker);
    console.log('\n| figure | value | target | met |\n|---|---|---|---|');
    for (const v of verdicts) console.log(`| ${v.figure} | ${v.ratio} | ${v.target} | ${v.met ? 'yes' : 'NO'} |`);
    for (const v of verdicts) report({ kind: 'target', ...v });
    process.exitCode = verdicts.every((v) => v.met) ? 0 : 1;
    return;
  }
  // First, alone (no worker, no other web process): the shop with its caches off (SHOP_CACHES=off,
  // every request queries, as the reference does) against the minimal reference.
  const leanShop = await start(
    [...(process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : []), 'src/main.ts', 'web'],
    { ...env, PORT: String(leanPort), APP_URL: leanBase, SHOP_CACHES: 'off' },
    `${leanBase}/healthz`,
  );
  // Sessions live in the database: this one serves every process of the bench.
  const admin = await signInAdmin(leanBase);
  const { cookie, csrfCookie } = admin;
  const auth = { cookie };
  const leanReference = await start(
    [
      ...(process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : []),
      'scripts/lean-reference.ts',
    ],
    {
      PORT: String(referencePort),
      DATABASE_URL: env.DATABASE_URL,
      AUTH_SECRET: env.AUTH_SECRET,
      SESSION_COOKIE: admin.sessionCookie,
    },
    `${referenceBase}/healthz`,
  );
  const leanVerdicts = await leanFigures(
    leanBase,
    referenceBase,
    {
      member: await memberCookie(admin.sessionCookie, env.AUTH_SECRET),
      admin: cookie,
    },
    { shop: leanShop.pid, minimal: leanReference.pid },
  );
  if (ONLY_LEAN) {
    console.log('\n| figure | value | target | met |\n|---|---|---|---|');
    for (const v of leanVerdicts) console.log(`| ${v.figure} | ${v.ratio} | ${v.target} | ${v.met ? 'yes' : 'NO'} |`);
    for (const v of leanVerdicts) report({ kind: 'target', ...v });
    process.exitCode = leanVerdicts.every((v) => v.met) ? 0 : 1;
    return;
  }
  const profile = process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}/web`] : [];
  const web = await start([...profile, 'src/main.ts', 'web'], { ...env, PORT: String(webPort) }, `${base}/healthz`);
  // As `npm run start:worker` starts it (package.json): the heap limit keeps V8 collecting early.
  const worker = await start(['--max-old-space-size=512', '--max-semi-space-size=16', 'src/main.ts', 'worker'], env);
  await start(['scripts/hello.ts'], { PORT: String(helloPort) }, `http://127.0.0.1:${helloPort}/`);

  const first = await (await fetch(`${base}/api/sales`, { headers: auth })).json();
  const deepest = Math.ceil(first.total / 20);
  const targets = {
    hello: [`http://127.0.0.1:${helloPort}/`, {}],
    catalogue: [`${base}/api/licenses`, auth],
    'users: name search': [`${base}/api/users?name=${encodeURIComponent('佐藤 太郎')}`, auth],
    'users: first page': [`${base}/api/users`, auth],
    'sales: first page': [`${base}/api/sales`, auth],
    [`sales: deepest page (${deepest})`]: [`${base}/api/sales?page=${deepest}`, auth],
    'sales: licence + status': [`${base}/api/sales?license_id=7&status=0`, auth],
    'sales: buyer full name': [`${base}/api/sales?q=${encodeURIComponent('山田 花子')}`, auth],
    'sales: buyer surname': [`${base}/api/sales?q=${encodeURIComponent('佐藤')}`, auth],
  } as Record<string, [string, Record<string, string>]>;
  const results: Record<string, Load[]> = {};
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, [url, headers]] of Object.entries(targets)) {
      const runs = results[name] ?? [];
      runs.push(await autocannon(name, url, headers));
      results[name] = runs;
    }
  }
  const best = (name: string) => {
    const rows = results[name] ?? [];
    return rows.reduce((a, b) => (b.rps > a.rps ? b : a), rows[0] as Load);
  };
  const hello = best('hello');
  const singles: Record<string, number> = {};
  for (const [name, [url, headers]] of Object.entries(targets)) {
    if (name !== 'hello') singles[name] = await single(name, url, headers);
  }

  const exportVerdicts = await exportFigures(base, auth, csrfCookie, worker);
  // Last, so the month's sales touch no figure before it.
  await seedOrderMonth((text, params) => sql(dbUrl.toString(), text, params), SCALE.members);
  const orderCsvVerdicts = await orderCsvFigures(base, cookie, web.pid as number, report, (text, params) =>
    sql(dbUrl.toString(), text, params),
  );

  const verdicts: Verdict[] = [
    ...startUpVerdicts,
    ...leanVerdicts,
    ...Object.keys(targets)
      .filter((name) => name.startsWith('users:') || name.startsWith('sales:'))
      .map((name) => ({
        figure: `${name} vs hello (req/s)`,
        ratio: +(best(name).rps / hello.rps).toFixed(4),
        target: `≥ ${TARGETS.listVsHello}`,
        met: best(name).rps / hello.rps >= TARGETS.listVsHello,
      })),
    // Every signed-in member's first screen (issue 12: ≥ 0.05 ×).
    {
      figure: 'catalogue vs hello (req/s)',
      ratio: +(best('catalogue').rps / hello.rps).toFixed(4),
      target: `≥ ${TARGETS.catalogueVsHello}`,
      met: best('catalogue').rps / hello.rps >= TARGETS.catalogueVsHello,
    },
    ...Object.entries(singles).map(([name, p50]) => ({
      figure: `${name}: single request p50 (ms)`,
      ratio: p50,
      target: `≤ ${TARGETS.singleP50Ms}`,
      met: p50 <= TARGETS.singleP50Ms,
    })),
    {
      figure: 'sales: deepest page p50 vs first page p50',
      ratio: +(best(`sales: deepest page (${deepest})`).p50 / Math.max(1, best('sales: first page').p50)).toFixed(2),
      target: `≤ ${TARGETS.deepVsFirst}`,
      met: best(`sales: deepest page (${deepest})`).p50 / Math.max(1, best('sales: first page').p50) <= TARGETS.deepVsFirst,
    },
    ...exportVerdicts,
    ...orderCsvVerdicts,
  ];
  console.log('\n| figure | value | target | met |\n|---|---|---|---|');
  for (const v of verdicts) console.log(`| ${v.figure} | ${v.ratio} | ${v.target} | ${v.met ? 'yes' : 'NO'} |`);
  console.log(
    `\n| load (best of ${ROUNDS} rounds, ${CONNECTIONS} connections, ${SECONDS} s) | req/s | p50 ms | p97.5 ms | errors |\n|---|---|---|---|---|`,
  );
  for (const name of Object.keys(targets)) {
    const b = best(name);
    console.log(`| ${name} | ${b.rps} | ${b.p50} | ${b.p97_5} | ${b.errors} |`);
  }
  for (const v of verdicts) report({ kind: 'target', ...v });
  // Lighthouse (mobile) on /login and /licenses in Debian's Chromium, when installed (scripts/lighthouse.ts).
  const lighthouse = await lighthouseScores(base, cookie);
  for (const score of lighthouse ?? []) report({ kind: 'lighthouse', ...score });
  // The JavaScript /licenses loads before its h1, signed out and signed in (issue 22: ≤ 170 KiB of gzip).
  const firstPage = await measureFirstPage(base, { cookie });
  for (const { scripts, ...figure } of firstPage ?? []) report({ kind: 'first-page-js', ...figure, scripts: scripts.length });
  process.exitCode =
    verdicts.every((v) => v.met) && (lighthouse ?? []).every((s) => s.met) && (firstPage ?? []).every((f) => f.met) ? 0 : 1;
}

try {
  await main();
} finally {
  for (const child of children) child.kill('SIGTERM');
  await sleep(1_000);
  if (process.env.BENCH_KEEP === '1' || reuse) console.log(`kept database ${dbName}`);
  else await sql(PG, `drop database if exists ${dbName} with (force)`).catch(() => undefined);
}
