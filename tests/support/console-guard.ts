import { format } from 'node:util';
import { afterEach, beforeEach } from 'vitest';

/**
 * A test that makes something write to console.error, or leaves a promise rejected with nobody
 * listening, fails — that test, with what was written — instead of passing with noise in the log
 * (the shop logs through pino; console.error is a library or a bug speaking). Vitest fails the run
 * on an unhandled rejection too, but names no test: this names the one that was running.
 */
const original = console.error;
let written: string[] = [];
let rejected: unknown[] = [];

// Files share a process (vitest.config.ts): the listener of the file before is replaced, not added to.
const guard = globalThis as { shopRejectionListener?: (reason: unknown) => void };
if (guard.shopRejectionListener) process.off('unhandledRejection', guard.shopRejectionListener);
guard.shopRejectionListener = (reason) => {
  rejected.push(reason);
};
process.on('unhandledRejection', guard.shopRejectionListener);

beforeEach(() => {
  written = [];
  rejected = [];
  console.error = (...args: unknown[]) => {
    written.push(format(...args));
    original(...args);
  };
});

afterEach(() => {
  console.error = original;
  const problems = [
    ...written.map((text) => `console.error: ${text.slice(0, 500)}`),
    ...rejected.map(
      (reason) => `unhandled rejection: ${reason instanceof Error ? (reason.stack ?? reason.message) : String(reason)}`,
    ),
  ];
  written = [];
  rejected = [];
  if (problems.length) throw new Error(`the test wrote errors outside its assertions:\n${problems.join('\n')}`);
});
