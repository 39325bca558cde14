import { randomUUID } from 'node:crypto';
import pg from 'pg';
import type { Logger } from '../lib/logger.ts';

export const CHANGE_CHANNEL = 'shop_changes';
const RECONNECT_MS = [100, 500, 1_000, 2_000, 5_000];
const SYNC_TIMEOUT_MS = 2_000;
const BEAT_MS = 250;
const LIVE_WINDOW_MS = 1_000;

type Listener = (key: string | undefined) => void;

export type Notify = (channel: string, payload: string) => Promise<unknown>;

/**
 * Notices of committed changes (LISTEN/NOTIFY on a direct connection: a transaction-mode pooler drops
 * them). Live only while beats sent through the pool come back; otherwise caches are bypassed and emptied.
 * (docs/decisions/0021-change-notices.md, 0023-pooler-and-change-feed.md)
 */
export class ChangeFeed {
  #client: pg.Client | undefined;
  #connected = false;
  #provenAt = 0;
  #stopped = false;
  #generation = 0;
  #attempt = 0;
  #timer: NodeJS.Timeout | undefined;
  #beat: NodeJS.Timeout | undefined;
  readonly #id = randomUUID();
  readonly #listeners = new Map<string, Set<Listener>>();
  readonly #resets = new Set<() => void>();
  readonly #pings = new Map<string, () => void>();

  readonly #databaseUrl: string;
  readonly #log: Logger;
  readonly #notify: Notify | undefined;

  constructor(listenUrl: string, log: Logger, notify?: Notify) {
    this.#databaseUrl = listenUrl;
    this.#log = log;
    this.#notify = notify;
  }

  get live(): boolean {
    return this.#connected && Date.now() - this.#provenAt <= LIVE_WINDOW_MS;
  }

  /** Read before and after a query: a change tells the answer may not be cached. */
  get generation(): number {
    return this.#generation;
  }

  on(table: string, listener: Listener): void {
    const set = this.#listeners.get(table) ?? new Set<Listener>();
    this.#listeners.set(table, set);
    set.add(listener);
  }

  onReset(reset: () => void): void {
    this.#resets.add(reset);
  }

  async start(): Promise<void> {
    await this.#connect();
  }

  /** Resolves once every notice committed before the call was handled, so a request never sees its own stale state. */
  async sync(): Promise<void> {
    const client = this.#client;
    if (!this.live || !client) return;
    const id = randomUUID();
    const echoed = new Promise<void>((resolve) => {
      this.#pings.set(id, resolve);
      setTimeout(resolve, SYNC_TIMEOUT_MS).unref();
    });
    try {
      // SQL as text: pg_notify on the LISTEN connection.
      await client.query('select pg_notify($1, $2)', [CHANGE_CHANNEL, `ping:${id}`]);
      await echoed;
    } catch {
    } finally {
      this.#pings.delete(id);
    }
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    clearInterval(this.#beat);
    this.#down();
    await this.#client?.end().catch(() => undefined);
    this.#client = undefined;
  }

  async #connect(): Promise<void> {
    if (this.#stopped) return;
    const client = new pg.Client({
      connectionString: this.#databaseUrl,
      keepAlive: true,
      connectionTimeoutMillis: 5_000,
      application_name: 'shop change notices',
    });
    client.on('error', (error) => this.#lost(client, error));
    client.on('end', () => this.#lost(client));
    client.on('notification', (message) => this.#notice(message.payload ?? ''));
    try {
      await client.connect();
      // SQL as text: LISTEN.
      await client.query(`listen ${CHANGE_CHANNEL}`);
      if (this.#stopped) {
        await client.end();
        return;
      }
      this.#client = client;
      this.#attempt = 0;
      // Whatever changed while nobody listened: start from empty caches.
      this.#reset();
      this.#connected = true;
      this.#startBeating();
      this.#log.info('listening for change notices');
    } catch (error) {
      client.removeAllListeners('end');
      await client.end().catch(() => undefined);
      this.#lost(client, error);
    }
  }

  #startBeating(): void {
    if (this.#beat) return;
    const send = () => {
      if (!this.#connected) return;
      const payload = `beat:${this.#id}:${Date.now()}`;
      const sent = this.#notify
        ? this.#notify(CHANGE_CHANNEL, payload)
        : // SQL as text: pg_notify on the LISTEN connection (raw pg), which no query builder says.
          this.#client?.query('select pg_notify($1, $2)', [CHANGE_CHANNEL, payload]);
      sent?.catch(() => undefined);
    };
    send();
    this.#beat = setInterval(send, BEAT_MS);
    this.#beat.unref();
  }

  #heard(key: string | undefined): void {
    const [id, at] = (key ?? '').split(':');
    if (id !== this.#id) return; // another process's beat
    const sentAt = Number(at);
    if (!Number.isFinite(sentAt) || sentAt <= this.#provenAt) return;
    // After a gap, notices may have been missed while nothing proved the feed: forget what caches hold.
    if (!this.live) {
      if (this.#provenAt > 0)
        this.#log.warn('change notices were not proven for a while: caches emptied', { gapMs: sentAt - this.#provenAt });
      this.#reset();
    }
    this.#provenAt = sentAt;
  }

  #notice(payload: string): void {
    const colon = payload.indexOf(':');
    const table = colon < 0 ? payload : payload.slice(0, colon);
    const key = colon < 0 ? undefined : payload.slice(colon + 1);
    if (table === 'ping') {
      this.#pings.get(key ?? '')?.();
      return;
    }
    if (table === 'beat') {
      this.#heard(key);
      return;
    }
    this.#generation++;
    for (const listener of this.#listeners.get(table) ?? []) listener(key);
  }

  #reset(): void {
    this.#generation++;
    for (const reset of this.#resets) reset();
  }

  #down(): void {
    if (this.#connected) this.#reset();
    this.#connected = false;
    this.#provenAt = 0;
    for (const resolve of this.#pings.values()) resolve();
  }

  #lost(client: pg.Client, error?: unknown): void {
    if (this.#client !== undefined && this.#client !== client) return;
    const wasLive = this.#connected;
    this.#down();
    this.#client = undefined;
    client.end().catch(() => undefined);
    if (this.#stopped || this.#timer) return;
    if (wasLive) this.#log.warn('change notices lost: caches bypassed until they are back', { error: String(error ?? 'ended') });
    const delay = RECONNECT_MS[Math.min(this.#attempt++, RECONNECT_MS.length - 1)] ?? 5_000;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      void this.#connect();
    }, delay);
    this.#timer.unref();
  }
}

/** Used only while the feed is live; filled only when no notice arrived while the answer was read. */
export class ChangeCache<V> {
  readonly #entries = new Map<string, { value: V; at: number }>();

  readonly #feed: ChangeFeed | undefined;
  readonly #options: { max: number; ttlMs: number };

  constructor(feed: ChangeFeed | undefined, options: { max: number; ttlMs: number }) {
    this.#feed = feed;
    this.#options = options;
    feed?.onReset(() => this.clear());
  }

  async get(key: string, load: () => Promise<V>): Promise<V> {
    const feed = this.#feed;
    if (!feed?.live) return load();
    const entry = this.#entries.get(key);
    if (entry && Date.now() - entry.at < this.#options.ttlMs) return entry.value;
    const generation = feed.generation;
    const value = await load();
    this.set(key, value, generation);
    return value;
  }

  since(): number {
    return this.#feed?.generation ?? 0;
  }

  set(key: string, value: V, generation: number): void {
    const feed = this.#feed;
    if (!feed?.live || feed.generation !== generation) return;
    if (this.#entries.size >= this.#options.max) this.#entries.delete(this.#entries.keys().next().value as string);
    this.#entries.set(key, { value, at: Date.now() });
  }

  peek(key: string): V | undefined {
    if (!this.#feed?.live) return undefined;
    const entry = this.#entries.get(key);
    return entry && Date.now() - entry.at < this.#options.ttlMs ? entry.value : undefined;
  }

  clear(stale?: (value: V, key: string) => boolean): void {
    if (!stale) {
      this.#entries.clear();
      return;
    }
    for (const [key, entry] of this.#entries) if (stale(entry.value, key)) this.#entries.delete(key);
  }
}

const shared = new WeakMap<ChangeFeed, Map<string, ChangeCache<unknown>>>();

/** Undefined without a feed (embedded PGlite, tests that want none): callers just query. */
export function tableCache<V>(
  feed: ChangeFeed | undefined,
  name: string,
  tables: readonly string[],
  options: { max: number; ttlMs: number },
): ChangeCache<V> | undefined {
  if (!feed) return undefined;
  let caches = shared.get(feed);
  if (!caches) {
    caches = new Map();
    shared.set(feed, caches);
  }
  let cache = caches.get(name) as ChangeCache<V> | undefined;
  if (!cache) {
    const created = new ChangeCache<V>(feed, options);
    for (const table of tables) feed.on(table, () => created.clear());
    caches.set(name, created as ChangeCache<unknown>);
    cache = created;
  }
  return cache;
}

export const cached = <V>(cache: ChangeCache<V> | undefined, key: string, load: () => Promise<V>): Promise<V> =>
  cache ? cache.get(key, load) : load();
