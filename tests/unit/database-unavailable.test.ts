import { describe, expect, it } from 'vitest';
import { isDatabaseUnavailable } from '../../src/app.ts';

describe('a database that is restarting or unreachable answers 503, not 500', () => {
  it('recognises the errors node-postgres and the pool raise while PostgreSQL restarts', () => {
    for (const message of [
      'Connection terminated unexpectedly',
      'Client has encountered a connection error and is not queryable',
      'timeout exceeded when trying to connect',
      'the database system is shutting down',
      'the database system is starting up',
      'terminating connection due to administrator command',
    ]) {
      expect(isDatabaseUnavailable(new Error(message)), message).toBe(true);
      expect(isDatabaseUnavailable(new Error('wrapped', { cause: new Error(message) })), message).toBe(true);
    }
    expect(isDatabaseUnavailable(Object.assign(new Error('x'), { code: '57P01' }))).toBe(true);
  });

  it('leaves real bugs as bugs', () => {
    expect(isDatabaseUnavailable(new Error('column "x" does not exist'))).toBe(false);
    expect(isDatabaseUnavailable(new TypeError('undefined is not a function'))).toBe(false);
    expect(isDatabaseUnavailable(Object.assign(new Error('dup'), { code: '23505' }))).toBe(false);
  });
});
