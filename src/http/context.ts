import type { EntityClass } from '@mikro-orm/core';
import type { Hono } from 'hono';
import type { Redis } from 'ioredis';
import type { Env } from '../config/env.ts';
import type { ChangeFeed } from '../db/changes.ts';
import type { Orm } from '../db/orm.ts';
import type { Queues } from '../events/queues.ts';
import type { EventHandlers } from '../jobs/context.ts';
import type { Logger } from '../lib/logger.ts';
import type { FileStore } from '../storage/file-store.ts';
import type { Drain } from './drain.ts';
import type { RateLimiter } from './rate-limit.ts';

export interface RefundPaymentRequest {
  paymentIntentId: string;
  idempotencyKey: string;
  metadata: Record<string, string>;
  /** Yen; absent: whatever remains. */
  amount?: number;
  /** Stripe's reason, shown in its dashboard (a payment made twice: `duplicate`). */
  reason?: 'duplicate' | 'requested_by_customer';
}

/** `unreachable` (network, outage) is worth asking again; `refused` is not. */
export type RefundPaymentOutcome =
  | { outcome: 'requested'; refundId: string; status: string | null }
  | { outcome: 'already_refunded' }
  /** The same idempotency key is being answered (another click, another administrator): it stands. */
  | { outcome: 'in_progress' }
  | { outcome: 'refused' | 'unavailable'; code: string | null; message: string };

/** A port: this layer names no module type (the checkout module implements it). */
export interface PaymentsPort {
  refundPayment(request: RefundPaymentRequest): Promise<RefundPaymentOutcome>;
  /** Throws when the provider does not answer quickly. */
  readPaymentMethod(paymentIntentId: string): Promise<string | null>;
  webhookSecret: string;
  checkoutOrigin: string;
}

/**
 * Services declared by the module that owns them, by declaration merging (accounts/auth.ts adds `auth`),
 * so that this file imports no module. @public: the merge needs the export, which knip cannot see.
 */
// biome-ignore lint/suspicious/noEmptyInterface: filled by declaration merging in the modules that own the services
export interface ModuleServices {}

export interface AppDeps extends ModuleServices {
  env: Env;
  orm: Orm;
  /** Absent: nothing is cached. */
  changes?: ChangeFeed;
  sessions: (headers: Headers) => Promise<SessionUser | null>;
  /** CSRF tokens are bound to its value. */
  sessionCookie: string;
  redis: Redis;
  queues: Queues;
  log: Logger;
  rateLimit: RateLimiter;
  authSecret: string;
  payments: PaymentsPort;
  files: FileStore;
  stripeEmulator?: { app: Hono };
  webRoot?: string;
  drain: Drain;
  /** Records staff refused outside ADMIN_ALLOWED_NETWORKS (the accounts module implements it). */
  staffNetworkRefused: (user: SessionUser, ip: string) => Promise<void>;
}

export interface SessionUser {
  id: string;
  email: string;
  role: string;
  emailVerified: boolean;
  lastName: string;
  firstName: string;
  sessionToken: string;
  twoFactorEnabled: boolean;
}

export interface AppEnv {
  Variables: {
    deps: AppDeps;
    requestId: string;
    log: Logger;
    user: SessionUser | null | undefined;
  };
}

interface UploadRoute {
  path: RegExp;
  maxBytes: number;
}

/** The host mounts, migrates and dispatches only what modules declare here. */
export interface AppModule {
  name: string;
  /** Paths must not depend on mounting order: numeric or uuid ids are constrained. */
  api?: Hono<AppEnv>;
  root?: Hono<AppEnv>;
  entities: readonly EntityClass[];
  handlers?: EventHandlers;
  uploads?: readonly UploadRoute[];
  /** Exact paths, or a pattern for a path with a token in it (the unsubscribe link). */
  csrfExempt?: readonly (string | RegExp)[];
}
