import type { Env } from '../config/env.ts';
import type { Em } from '../db/orm.ts';
import type { DomainEvent, EventName } from '../events/contracts.ts';
import type { Logger } from '../lib/logger.ts';
import type { FileStore } from '../storage/file-store.ts';

/** An e-mail as a job hands it to the mailer. */
interface OutgoingMail {
  to: string;
  subject: string;
  text: string;
  html: string;
  /** `<…@…>`: every copy of one delivery carries the same (see messageIdFor). */
  messageId?: string;
  headers?: Record<string, string>;
  bulk?: boolean;
  replyTo?: string;
  attachments?: { filename: string; content: Buffer; contentType: string }[];
}

/**
 * What job handlers may ask of the mailer (the mail module's `Mailer` implements it; closing it is the
 * host's business). A port: this layer names no module type.
 */
interface MailerPort {
  send(message: OutgoingMail): Promise<{ messageId: string; file?: string }>;
  /** The Message-ID of the delivery `key`: the same on every attempt, in the sender's domain. */
  messageIdFor(key: string): string;
}

/**
 * What a job handler gets: an EntityManager forked for this job, and the shared services (a module
 * adds its own by declaration merging, as checkout adds the Stripe client).
 */
export interface JobContext {
  em: Em;
  env: Env;
  mailer: MailerPort;
  log: Logger;
  authSecret: string;
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
