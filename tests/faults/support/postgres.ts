import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { freePort } from '../../support/ports.ts';

/** The unprivileged account that owns the private cluster when the suite runs as root (initdb refuses root). */
const SYSTEM_USER = 'shopfault';

/** Debian keeps initdb and pg_ctl out of PATH, under /usr/lib/postgresql/<major>/bin. */
function binDir(): string {
  const root = '/usr/lib/postgresql';
  if (existsSync(root)) {
    const majors = readdirSync(root)
      .filter((name) => existsSync(join(root, name, 'bin', 'initdb')))
      .sort((a, b) => Number(b) - Number(a));
    if (majors[0]) return join(root, majors[0], 'bin');
  }
  try {
    return execFileSync('pg_config', ['--bindir'], { encoding: 'utf8' }).trim();
  } catch {
    throw new Error('initdb が見つかりません (initdb not found): apt-get install postgresql');
  }
}

const isRoot = () => process.getuid?.() === 0;

function ensureSystemUser(): { uid: number; gid: number } | undefined {
  if (!isRoot()) return undefined;
  try {
    execFileSync('id', ['-u', SYSTEM_USER], { stdio: 'ignore' });
  } catch {
    execFileSync('useradd', ['--system', '--no-create-home', '--shell', '/usr/sbin/nologin', SYSTEM_USER], { stdio: 'ignore' });
  }
  const uid = Number(execFileSync('id', ['-u', SYSTEM_USER], { encoding: 'utf8' }).trim());
  const gid = Number(execFileSync('id', ['-g', SYSTEM_USER], { encoding: 'utf8' }).trim());
  return { uid, gid };
}

/**
 * A PostgreSQL cluster of the suite's own on a free port (trust auth, user postgres, no fsync), which
 * a test may restart (`pg_ctl restart -m fast`) or whose backends it may terminate.
 */
export async function startPrivatePostgres() {
  const bin = binDir();
  const owner = ensureSystemUser();
  const port = await freePort();
  const base = mkdtempSync(join(tmpdir(), 'shop-faults-pg-'));
  const data = join(base, 'data');
  const log = join(base, 'postgres.log');
  if (owner) {
    chownSync(base, owner.uid, owner.gid);
    chmodSync(base, 0o755);
  }
  const run = (tool: string, args: string[]) => {
    const command = join(bin, tool);
    const [file, argv] = owner ? ['runuser', ['-u', SYSTEM_USER, '--', command, ...args]] : [command, args];
    return execFileSync(file, argv, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], cwd: base });
  };
  run('initdb', ['-D', data, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--locale=C', '--no-sync']);
  const options = [
    `-p ${port}`,
    `-k ${base}`,
    '-c listen_addresses=127.0.0.1',
    '-c fsync=off',
    '-c synchronous_commit=off',
    '-c full_page_writes=off',
    '-c max_connections=200',
  ].join(' ');
  const pgCtl = (...args: string[]) => run('pg_ctl', ['-D', data, '-l', log, '-o', options, '-w', '-t', '60', ...args]);
  pgCtl('start');
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;

  const query = async <T = Record<string, unknown>>(sql: string, params: unknown[] = [], database = 'postgres') => {
    const u = new URL(url);
    u.pathname = `/${database}`;
    const client = new Client({ connectionString: u.toString() });
    // A reset while the client connects or ends (the scenario stopping PostgreSQL under it) is an
    // 'error' event, which with no listener ends the test run; a failed query still rejects.
    client.on('error', () => undefined);
    await client.connect();
    try {
      return (await client.query(sql, params)).rows as T[];
    } finally {
      await client.end();
    }
  };

  return {
    port,
    url,
    dataDir: data,
    logFile: log,
    urlOf(database: string) {
      const u = new URL(url);
      u.pathname = `/${database}`;
      return u.toString();
    },
    query,
    /** `pg_ctl restart -m fast`: every connection is cut, open transactions roll back. */
    restart: () => void pgCtl('restart', '-m', 'fast'),
    stop: () => void pgCtl('stop', '-m', 'fast'),
    start: () => void pgCtl('start'),
    /** Terminates every backend of `database` except ours; returns how many were terminated. */
    async terminateBackends(database: string): Promise<number> {
      const rows = await query<{ n: number }>(
        `select count(*) filter (where pg_terminate_backend(pid))::int as n
           from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()`,
        [database],
      );
      return rows[0]?.n ?? 0;
    },
    async destroy() {
      try {
        run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
      } catch {
        // already stopped
      }
      rmSync(base, { recursive: true, force: true });
    },
  };
}
export type PrivatePostgres = Awaited<ReturnType<typeof startPrivatePostgres>>;
