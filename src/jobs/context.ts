import type Stripe from 'stripe';
import type { Env } from '../config/env.ts';
import type { Em } from '../db/orm.ts';
import type { DomainEvent, EventName } from '../events/contracts.ts';
import type { Mailer } from '../modules/mail/mailer.ts';
import type { Logger } from '../runtime/logger.ts';

/** What a job handler gets: an EntityManager forked for this job, and the shared services. */
export interface JobContext {
  em: Em;
  env: Env;
  mailer: Mailer;
  log: Logger;
  authSecret: string;
  stripe: Stripe;
}

export type JobResult = 'done' | 'skipped';
export type EventHandler<N extends EventName = EventName> = (ctx: JobContext, event: DomainEvent<N>) => Promise<JobResult>;
