import type Stripe from 'stripe';
import type { Env } from '../config/env.ts';
import type { Em } from '../db/orm.ts';
import type { DomainEvent, EventName } from '../events/contracts.ts';
import type { Logger } from '../lib/logger.ts';
import type { Mailer } from '../modules/mail/index.ts';
import type { FileStore } from '../storage/file-store.ts';

/** What a job handler gets: an EntityManager forked for this job, and the shared services. */
export interface JobContext {
  em: Em;
  env: Env;
  mailer: Mailer;
  log: Logger;
  authSecret: string;
  stripe: Stripe;
  files: FileStore;
  /** The event this job runs for (set by the worker): a mail delivery keeps it to be sent again. */
  event?: DomainEvent;
}

export type JobResult = 'done' | 'skipped';
export type EventHandler<N extends EventName = EventName> = (ctx: JobContext, event: DomainEvent<N>) => Promise<JobResult>;

/** A module's handlers, each tied to its event's payload type: `{ SalePaid: EventHandler<'SalePaid'>, … }`. */
export type EventHandlers = { [N in EventName]?: EventHandler<N> };

/** Several modules react to one event: each runs in turn (each is idempotent on its own). */
export function inTurn<N extends EventName>(...handlers: EventHandler<N>[]): EventHandler<N> {
  return async (ctx, event) => {
    let result: JobResult = 'skipped';
    for (const handler of handlers) if ((await handler(ctx, event)) === 'done') result = 'done';
    return result;
  };
}
