import { Writable } from 'node:stream';
import { expect, it } from 'vitest';
import { createLogger } from '../../src/lib/logger.ts';

function capture() {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  return { lines, stream };
}

it('writes one JSON line per entry: ISO time, level name, msg, bindings and fields', () => {
  const { lines, stream } = capture();
  const log = createLogger('info', { mode: 'web' }, stream).child({ requestId: 'r-1' });
  log.debug('hidden');
  log.info('request', { method: 'GET', status: 200 });
  expect(lines).toHaveLength(1);
  const [line] = lines;
  expect(line).toMatchObject({ level: 'info', msg: 'request', mode: 'web', requestId: 'r-1', method: 'GET', status: 200 });
  expect(new Date(String(line?.time)).toISOString()).toBe(line?.time);
  expect(Object.keys(line ?? {})).not.toContain('pid');
});

it('redacts passwords, tokens, cookies and authorization wherever they sit', () => {
  const { lines, stream } = capture();
  createLogger('info', {}, stream).warn('login failed', {
    password: 'hunter2-secret',
    body: { new_password: 'n3w-secret', token: 'tok-secret' },
    headers: { cookie: 'session=cookie-secret', authorization: 'Bearer auth-secret' },
  });
  const text = JSON.stringify(lines);
  for (const secret of ['hunter2-secret', 'n3w-secret', 'tok-secret', 'cookie-secret', 'auth-secret']) {
    expect(text).not.toContain(secret);
  }
  expect(lines[0]).toMatchObject({ level: 'warn', password: '[redacted]', headers: { cookie: '[redacted]' } });
});

it('serialises errors with their type, message, stack and cause', () => {
  const { lines, stream } = capture();
  const error = new TypeError('outer', { cause: new Error('inner') });
  createLogger('info', {}, stream).error('unhandled error', { error });
  const logged = lines[0]?.error as Record<string, unknown>;
  expect(logged).toMatchObject({ type: 'TypeError', message: expect.stringContaining('outer') });
  expect(String(logged.stack)).toContain('TypeError: outer');
  expect(JSON.stringify(logged)).toContain('inner');
});

it('is silent when asked to be', () => {
  const { lines, stream } = capture();
  createLogger('silent', {}, stream).error('nothing');
  expect(lines).toEqual([]);
});
