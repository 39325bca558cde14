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

/** A full refund asked of the payment provider, once per idempotency key. */
export interface RefundPaymentRequest {
  paymentIntentId: string;
  idempotencyKey: string;
  /** Our ids, kept with the refund at the provider (shown in its dashboard). */
  metadata: Record<string, string>;
}

/**
 * The provider's answer: taken (its webhook confirms it later), refunded there already, refused (the
 * payment cannot be refunded), or not reached (network, outage: worth asking again).
 */
export type RefundPaymentOutcome =
  | { outcome: 'requested'; refundId: string; status: string | null }
  | { outcome: 'already_refunded' }
  | { outcome: 'refused' | 'unavailable'; code: string | null; message: string };

/**
 * What request handlers of other modules may ask of payments (the checkout module's `Payments`
 * implements it, the only code that talks to Stripe). A port: this layer names no module type.
 */
export interface PaymentsPort {
  refundPayment(request: RefundPaymentRequest): Promise<RefundPaymentOutcome>;
  /** The payment's method type (card, konbini, …) or null when unknown; throws when the provider does not answer quickly. */
  readPaymentMethod(paymentIntentId: string): Promise<string | null>;
  /** Verifies the Stripe webhook's signature. */
  webhookSecret: string;
  /** The only origin the checkout redirect route forwards to. */
  checkoutOrigin: string;
}

/**
 * Services declared by the module that owns them, by declaration merging (accounts/auth.ts adds `auth`),
 * so that this file imports no module. @public: the merge needs the export, which knip cannot see.
 */
// biome-ignore lint/suspicious/noEmptyInterface: filled by declaration merging in the modules that own the services
export interface ModuleServices {}

/** Everything a request handler may use, built once at start-up (src/host/boot.ts). */
export interface AppDeps extends ModuleServices {
  env: Env;
  orm: Orm;
  /** Notices of committed changes that keep in-process caches current (absent: nothing is cached). */
  changes?: ChangeFeed;
  /** The signed-in user of a request's cookies, checked against the database (accounts module). */
  sessions: (headers: Headers) => Promise<SessionUser | null>;
  /** The session cookie's name (CSRF tokens are bound to its value). */
  sessionCookie: string;
  redis: Redis;
  queues: Queues;
  log: Logger;
  rateLimit: RateLimiter;
  authSecret: string;
  payments: PaymentsPort;
  /** Pictures and exports (DATA_DIR or S3). */
  files: FileStore;
  /** The built-in Stripe emulator's routes (development without Stripe keys; src/dev). */
  stripeEmulator?: { app: Hono };
  webRoot?: string;
  /** Set from the first moment of a shutdown (src/main.ts): /readyz answers 503. */
  drain: Drain;
}

export interface SessionUser {
  id: string;
  email: string;
  role: string;
  emailVerified: boolean;
  lastName: string;
  firstName: string;
  sessionToken: string;
  /** TOTP enrolled (better-auth's twoFactor plugin): administrators may use their role only then. */
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

/** An API path (under /api) that takes a larger body than the 1 MB JSON limit: picture uploads. */
interface UploadRoute {
  path: RegExp;
  maxBytes: number;
}

/**
 * What a module hands the host (its index.ts exports one): its routes, the tables it owns, the
 * events it handles. The host mounts, migrates and dispatches only what modules declare here.
 */
export interface AppModule {
  name: string;
  /** Routes under /api. Paths must not depend on mounting order: numeric or uuid ids are constrained. */
  api?: Hono<AppEnv>;
  /** Routes at the site root (e.g. stored pictures, health checks). */
  root?: Hono<AppEnv>;
  entities: readonly EntityClass[];
  handlers?: EventHandlers;
  uploads?: readonly UploadRoute[];
  /** Signed callers that cannot carry the CSRF token (the Stripe webhook). */
  csrfExempt?: readonly string[];
}
