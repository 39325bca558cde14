import type { Redis } from 'ioredis';
import type { Env } from '../config/env.ts';
import type { Orm } from '../db/orm.ts';
import type { Queues } from '../events/queues.ts';
import type { Auth } from '../modules/accounts/auth.ts';
import type { Payments } from '../modules/checkout/stripe.ts';
import type { Logger } from '../runtime/logger.ts';
import type { StripeEmulator } from '../stripe-emulator/emulator.ts';
import type { RateLimiter } from './rate-limit.ts';

/** Everything a request handler may use, built once at start-up (see main.ts and tests/support). */
export interface AppDeps {
  env: Env;
  orm: Orm;
  auth: Auth;
  redis: Redis;
  queues: Queues;
  log: Logger;
  rateLimit: RateLimiter;
  authSecret: string;
  payments: Payments;
  stripeEmulator?: StripeEmulator;
  webRoot?: string;
}

export interface SessionUser {
  id: string;
  email: string;
  role: string;
  emailVerified: boolean;
  lastName: string;
  firstName: string;
  sessionToken: string;
}

export interface AppEnv {
  Variables: {
    deps: AppDeps;
    requestId: string;
    log: Logger;
    user: SessionUser | null | undefined;
  };
}
