/**
 * Start-up time (issue 32 item 4, docs/decisions/0020-pool-and-start-up.md): from exec of a process
 * as `npm run start:web` / `start:worker` start it to its first 200 on /readyz (web) or on the metrics
 * port (worker), on a database whose schema is current. The minimum of `runs` starts each: a neighbour's
 * load only ever adds time. Used by scripts/bench.ts; alone: `node scripts/start-up.ts` with DATABASE_URL,
 * REDIS_URL and AUTH_SECRET of a migrated database.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

const root = resolve(import.meta.dirname, '..');
export const START_UP_TARGET_MS = 2_500;

const METRICS_TOKEN = 'start-up-bench-metrics-token';

async function freePort(): Promise<number> {
  return new Promise((done) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => done(port));
    });
  });
}

/** CPU milliseconds (user + system) a process has used, from /proc/<pid>/stat (ticks of 10 ms). */
function cpuMs(pid: number | undefined): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/**
 * Milliseconds from spawn to the first 200 of `url`, and the CPU milliseconds the process had used by
 * then (which a busy neighbour barely changes); the process is then stopped (SIGTERM) and awaited.
 */
async function timeOneStart(mode: 'web' | 'worker', env: Record<string, string>): Promise<{ ms: number; cpuMs: number }> {
  const port = await freePort();
  const url = mode === 'web' ? `http://127.0.0.1:${port}/readyz` : `http://127.0.0.1:${port}/metrics`;
  const portEnv =
    mode === 'web' ? { PORT: String(port), APP_URL: `http://127.0.0.1:${port}` } : { WORKER_METRICS_PORT: String(port) };
  const heap = mode === 'worker' ? ['--max-old-space-size=512', '--max-semi-space-size=16'] : [];
  const t0 = performance.now();
  const child = spawn(process.execPath, [...heap, '--import', './src/instrument.ts', 'src/main.ts', mode], {
    cwd: root,
    env: { ...process.env, ...env, ...portEnv, METRICS_TOKEN, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let tail = '';
  child.stderr?.on('data', (chunk) => (tail = (tail + chunk).slice(-4_000)));
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  let gone = false;
  void exited.then(() => (gone = true));
  try {
    for (;;) {
      if (gone) throw new Error(`${mode} exited before answering ${url}:\n${tail}`);
      const res = await fetch(url, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } }).catch(() => null);
      if (res) await res.arrayBuffer();
      if (res?.ok) return { ms: Math.round(performance.now() - t0), cpuMs: cpuMs(child.pid) };
      if (performance.now() - t0 > 60_000) throw new Error(`${mode} did not answer ${url} in 60 s:\n${tail}`);
      await sleep(10);
    }
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

export interface StartUpFigure {
  figure: string;
  ratio: number;
  target: string;
  met: boolean;
  runs: number[];
  /** CPU milliseconds of each start, up to its first 200. */
  cpuMs: number[];
}

/** The minimum of `runs` starts of a web and of a worker process, each against START_UP_TARGET_MS. */
export async function startUpFigures(env: Record<string, string>, runs = 3): Promise<StartUpFigure[]> {
  const figures: StartUpFigure[] = [];
  for (const mode of ['web', 'worker'] as const) {
    const starts: { ms: number; cpuMs: number }[] = [];
    for (let i = 0; i < runs; i++) starts.push(await timeOneStart(mode, env));
    const times = starts.map((start) => start.ms);
    const best = Math.min(...times);
    figures.push({
      figure: mode === 'web' ? 'web start-up: exec → /readyz 200 (ms, min)' : 'worker start-up: exec → metrics 200 (ms, min)',
      ratio: best,
      target: `≤ ${START_UP_TARGET_MS}`,
      met: best <= START_UP_TARGET_MS,
      runs: times,
      cpuMs: starts.map((start) => start.cpuMs),
    });
  }
  return figures;
}

if (import.meta.main) {
  const figures = await startUpFigures(
    {
      NODE_ENV: process.env.NODE_ENV ?? 'production',
      DATA_DIR: process.env.DATA_DIR ?? '/tmp/shop-start-up',
      SMTP_URL: process.env.SMTP_URL ?? 'smtp://127.0.0.1:2525',
      STRIPE_SECRET_KEY: process.env.STRIPE_SECRET_KEY ?? 'sk_test_start_up',
      STRIPE_WEBHOOK_SECRET: process.env.STRIPE_WEBHOOK_SECRET ?? 'whsec_start_up',
    },
    Number(process.env.START_UP_RUNS ?? 3),
  );
  for (const figure of figures) console.log(JSON.stringify({ kind: 'start-up', ...figure }));
  process.exitCode = figures.every((f) => f.met) ? 0 : 1;
}
