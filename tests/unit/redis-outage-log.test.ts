import { EventEmitter, Writable } from 'node:stream';
import type { Redis } from 'ioredis';
import { afterEach, expect, it, vi } from 'vitest';
import { createLogger } from '../../src/lib/logger.ts';
import { reportRedisError, watchRedisOutages } from '../../src/lib/redis.ts';

afterEach(() => {
  vi.useRealTimers();
});

it('logs a long outage as one warn line per 10 s, whoever reports the failed tries, and one info line when back', () => {
  vi.useFakeTimers({ now: new Date('2026-11-28T09:00:00Z') });
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n')) if (line.trim()) lines.push(JSON.parse(line));
      done();
    },
  });
  const log = createLogger('debug', {}, sink);
  const client = new EventEmitter() as unknown as Redis;
  watchRedisOutages(client, log, { component: 'worker', address: 'sentinel shop via 10.0.0.1:26379' });
  const fallback = vi.fn();

  // 60 s of failed tries, five a second, half from the connection and half from its BullMQ workers.
  for (let i = 0; i < 300; i++) {
    if (i % 2) client.emit('error', new Error('connect ECONNREFUSED 10.0.0.5:6379'));
    else reportRedisError(client, new Error('All sentinels are unreachable'), fallback);
    vi.advanceTimersByTime(200);
  }
  client.emit('ready');
  client.emit('ready');

  expect(fallback).not.toHaveBeenCalled();
  const warned = lines.filter((l) => l.msg === 'Redis unreachable; retrying');
  expect(warned).toHaveLength(6);
  expect(warned[0]).toMatchObject({ level: 'warn', component: 'worker', address: 'sentinel shop via 10.0.0.1:26379' });
  expect(lines.filter((l) => l.msg === 'Redis reachable again')).toEqual([
    expect.objectContaining({ level: 'info', component: 'worker', downSeconds: 60 }),
  ]);
  expect(lines).toHaveLength(7);

  // An unwatched connection's errors go where they went before.
  const other = new EventEmitter() as unknown as Redis;
  reportRedisError(other, new Error('boom'), fallback);
  expect(fallback).toHaveBeenCalledTimes(1);
});
