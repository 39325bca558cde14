import { defineConfig } from 'vitest/config';

/**
 * The fault suite (`npm run test:faults`): each file starts its own PostgreSQL cluster, redis-server
 * and SMTP server on free ports, runs the shop as separate web and worker processes, breaks something
 * and checks the ledger. One file at a time, one test at a time, with time for outages to pass.
 */
export default defineConfig({
  test: {
    include: ['tests/faults/**/*.test.ts'],
    reporters: ['default', './tests/support/summary-reporter.ts'],
    // console.error or an unhandled rejection fails the test that caused it.
    setupFiles: ['tests/support/console-guard.ts'],
    pool: 'forks',
    maxWorkers: 1,
    fileParallelism: false,
    sequence: { concurrent: false },
    testTimeout: 600_000,
    hookTimeout: 180_000,
    teardownTimeout: 60_000,
  },
});
