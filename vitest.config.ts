import { configDefaults, defineConfig } from 'vitest/config';

/**
 * Files that break shared processes on purpose — private redis-servers, Sentinels, PgBouncer and
 * HAProxy stopped under them, spawned shops — or read prom-client's process-wide counters: each runs
 * in a process of its own. The rest share a process per worker, so the libraries (better-auth,
 * MikroORM, Sentry…, seconds to import) load once per worker, not once per file.
 */
const OWN_PROCESS = [
  'tests/api/drain.test.ts',
  'tests/api/pgbouncer.test.ts',
  'tests/api/redis-sentinel.test.ts',
  'tests/api/startup.test.ts',
  'tests/api/metrics.test.ts',
  'tests/api/metrics-format.test.ts',
  'tests/workers/announcement-kill.test.ts',
  'tests/workers/redis-outage.test.ts',
];

export default defineConfig({
  test: {
    globalSetup: ['tests/support/global-setup.ts'],
    reporters: ['default', './tests/support/summary-reporter.ts'],
    // console.error or an unhandled rejection fails the test that caused it.
    setupFiles: ['tests/support/console-guard.ts'],
    pool: 'forks',
    // Three files at a time on two cores: most files wait on PostgreSQL, Redis, SMTP or Chromium, not the CPU.
    maxWorkers: 3,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    fileParallelism: true,
    projects: [
      {
        extends: true,
        test: {
          name: 'shared',
          include: ['tests/**/*.test.ts'],
          // The fault suite runs on its own (npm run test:faults, vitest.faults.config.ts).
          exclude: [...configDefaults.exclude, 'tests/faults/**', ...OWN_PROCESS],
          isolate: false,
        },
      },
      { extends: true, test: { name: 'own process', include: OWN_PROCESS, isolate: true } },
    ],
  },
});
