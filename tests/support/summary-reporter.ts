import type { Reporter, TestCase } from 'vitest/node';

/** Prints the plain closing line CI reads: `N passed, N failed` (, N skipped). */
export default class SummaryReporter implements Reporter {
  #passed = 0;
  #failed = 0;
  #skipped = 0;

  onTestCaseResult(test: TestCase) {
    const state = test.result().state;
    if (state === 'passed') this.#passed++;
    else if (state === 'failed') this.#failed++;
    else this.#skipped++;
  }

  onTestRunEnd(_modules: unknown, errors: readonly unknown[]) {
    const failed = this.#failed + (errors.length > 0 && this.#failed === 0 ? errors.length : 0);
    const skipped = this.#skipped ? `, ${this.#skipped} skipped` : '';
    process.stdout.write(`\n${this.#passed} passed, ${failed} failed${skipped}\n`);
  }
}
