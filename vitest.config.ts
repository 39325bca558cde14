import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts'],
    // The fault suite runs on its own (npm run test:faults, vitest.faults.config.ts).
    exclude: [...configDefaults.exclude, 'tests/faults/**'],
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
  },
});
