import { randomUUID } from 'node:crypto';
import { type Expression, type ExpressionBuilder, type SqlBool, sql } from 'kysely';
import { countAll, type DB, jsonb, db as kysely, now } from '../../db/kysely.ts';
import type { Em, Orm } from '../../db/orm.ts';
import type { DomainEvent } from '../../events/contracts.ts';
import type { Queues } from '../../events/queues.ts';
import { AppError } from '../../http/errors.ts';
import { PermanentJobError } from '../../jobs/errors.ts';
import type { Logger } from '../../lib/logger.ts';
import { type Actor, recordAudit } from '../audit/index.ts';
import type { MailStatus } from './entities/mail-delivery.entity.ts';
import { type MailKind, mailKindLabel } from './kinds.ts';
import type { Mailer, MailMessage } from './mailer.ts';

export type SendResult = 'sent' | 'skipped';

const MAX_ERROR_LENGTH = 2000;

/**
 * How long a claim keeps other attempts away from a delivery. Longer than one send takes (its SMTP
 * phases are limited to 30 s each) and as long as the shutdown drain (src/main.ts); after it, the
 * claimant is taken for dead and the e-mail is sent again, with the same Message-ID.
 */
export const CLAIM_LEASE_SECONDS = 120;

/** The time before which a claim has run out of lease. */
const leaseStart = () => sql<string>`now() - make_interval(secs => ${CLAIM_LEASE_SECONDS})`;

/**
 * Another attempt claimed the delivery moments ago and may be talking to SMTP: try again once its
 * claim has run out (`retryAfterMs`, which the workers' back-off honours), not before.
 */
export class MailInFlightError extends Error {
  readonly retryAfterMs: number;
  constructor(key: string, retryAfterMs: number) {
    super(`mail ${key} is being sent by another attempt; retrying in ${Math.ceil(retryAfterMs / 1000)} s`);
    this.name = 'MailInFlightError';
    this.retryAfterMs = retryAfterMs;
  }
}

/**
 * A refusal for good: the server answered 5xx (nodemailer's `responseCode >= 500`) to the recipient
 * (RCPT TO) or to the message (DATA). A 5xx to our greeting, sign-in or sender address says the
 * server or our settings are wrong for every e-mail — an operator fixes that — so it is retried like
 * any other failure.
 */
export function isPermanentSmtpError(error: unknown): boolean {
  const e = error as { responseCode?: unknown; command?: unknown } | null;
  if (!e || typeof e.responseCode !== 'number' || e.responseCode < 500 || e.responseCode > 599) return false;
  return e.command === 'RCPT TO' || e.command === 'DATA';
}

const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error)).slice(0, MAX_ERROR_LENGTH);

/**
 * Sends `message` for `key` (event id + kind), at least once, and keeps each attempt in the mail log
 * of `userId`, the member it is for (null: nobody, e.g. the receipt of a deleted account).
 *
 * No database transaction is held while SMTP runs (docs/decisions/0007-exactly-once-mail.md):
 * 1. The row is put on record ('sending') before anything goes out.
 * 2. A single UPDATE claims it — only a row not sent, not refused for good, and not claimed by another
 *    attempt within CLAIM_LEASE_SECONDS — counting the attempt, and commits.
 * 3. The e-mail goes out with the Message-ID derived from the key, then the row is marked sent.
 *    A worker that dies between 3's send and its mark leaves a stale claim: a later attempt sends
 *    again, with the same Message-ID, so the copies are recognisably one e-mail.
 * 4. A failure is recorded (status, the server's answer, failed_at); SMTP 5xx for the recipient is
 *    permanent (PermanentJobError: the job stops, an operator may resend), anything else is thrown as
 *    is, for the job's retries.
 */
export async function sendOnce(
  { em, mailer, event, log }: { em: Em; mailer: Pick<Mailer, 'send' | 'messageIdFor'>; event?: DomainEvent; log?: Logger },
  key: string,
  template: MailKind,
  userId: string | null | undefined,
  message: MailMessage,
  options: { about?: string } = {},
): Promise<SendResult> {
  const db = kysely(em.fork());
  const messageId = mailer.messageIdFor(key);
  const stored = event ? jsonb({ id: event.id, name: event.name, occurredAt: event.occurredAt, payload: event.payload }) : null;
  await db
    .insertInto('mail_deliveries')
    .values({
      id: randomUUID(),
      key,
      template,
      user_id: userId ?? null,
      recipient: message.to,
      subject: message.subject,
      status: 'sending',
      attempts: 0,
      message_id: messageId,
      event: stored,
      about: options.about ?? null,
      created_at: now(),
    })
    .onConflict((oc) => oc.column('key').doNothing())
    .execute();
  const row = await db
    .updateTable('mail_deliveries')
    .set((eb) => ({
      status: 'sending',
      claimed_at: now(),
      attempts: eb('attempts', '+', 1),
      recipient: message.to,
      subject: message.subject,
      message_id: messageId,
      // coalesce(event, null) is the event as it is: only a stored event fills a row without one.
      ...(stored ? { event: eb.fn.coalesce('event', stored) } : {}),
    }))
    .where('key', '=', key)
    .where('status', '<>', 'sent')
    .where((eb) => eb.not(eb.ref('permanent')))
    .where((eb) => eb.or([eb('status', '<>', 'sending'), eb('claimed_at', 'is', null), eb('claimed_at', '<', leaseStart())]))
    .returning(['id', 'attempts'])
    .executeTakeFirst();
  if (!row) {
    const current = await db
      .selectFrom('mail_deliveries')
      .select((eb) => [
        'status',
        'permanent',
        sql<
          number | null
        >`extract(epoch from ${eb.ref('claimed_at')} + make_interval(secs => ${CLAIM_LEASE_SECONDS}) - now())::float8`.as(
          'lease_left',
        ),
      ])
      .where('key', '=', key)
      .executeTakeFirst();
    // Sent already, or refused for good (only an operator's resend sends it again).
    if (!current || current.status === 'sent' || current.permanent) return 'skipped';
    throw new MailInFlightError(key, Math.max(1_000, Math.ceil((current.lease_left ?? 0) * 1000) + 1_000));
  }

  try {
    await mailer.send({ ...message, messageId });
  } catch (error) {
    const permanent = isPermanentSmtpError(error);
    const text = errorText(error);
    // Recording is best effort: the job's outcome follows the SMTP answer either way. Only this
    // attempt's claim is ended (`attempts` is its number): a later claim, made after this one ran out
    // of lease, is left to its own attempt.
    await db
      .updateTable('mail_deliveries')
      .set({ status: 'failed', permanent, error: text, failed_at: now(), claimed_at: null })
      .where('id', '=', row.id)
      .where('status', '<>', 'sent')
      .where('attempts', '=', row.attempts)
      .execute()
      .catch(() => undefined);
    if (permanent) {
      // An operator must act (check the address, resend): the ids to act on, never the address or name.
      log?.warn('mail refused for good by the mail server', {
        delivery: row.id,
        userId: userId ?? null,
        template,
        attempt: row.attempts,
        responseCode: (error as { responseCode?: number }).responseCode,
      });
      throw new PermanentJobError(text, { cause: error });
    }
    throw error;
  }
  // If this fails (database gone), the claim goes stale and a later attempt sends the same e-mail again.
  await db
    .updateTable('mail_deliveries')
    .set({ status: 'sent', sent_at: now(), error: null, permanent: false, claimed_at: null })
    .where('id', '=', row.id)
    .execute();
  return 'sent';
}

interface MailRow {
  id: string;
  template: string;
  user_id: string | null;
  recipient: string;
  subject: string;
  status: MailStatus;
  permanent: boolean;
  attempts: number;
  error: string | null;
  message_id: string | null;
  sent_at: Date | string | null;
  failed_at: Date | string | null;
  created_at: Date | string;
}

const COLUMNS = [
  'id',
  'template',
  'user_id',
  'recipient',
  'subject',
  'status',
  'permanent',
  'attempts',
  'error',
  'message_id',
  'sent_at',
  'failed_at',
  'created_at',
] as const;

const iso = (date: Date | string | null) => (date ? new Date(date).toISOString() : null);

function mailDto(row: MailRow) {
  return {
    id: row.id,
    kind: row.template,
    kind_label: mailKindLabel(row.template),
    recipient: row.recipient,
    subject: row.subject,
    status: row.status,
    /** The server refused it for good (SMTP 5xx): not retried until an operator resends it. */
    permanent: row.permanent,
    sent_at: iso(row.sent_at),
    failed_at: iso(row.failed_at),
    error: row.error,
    attempts: row.attempts,
    message_id: row.message_id,
    created_at: iso(row.created_at),
  };
}

/** The e-mails sent (or tried) for one member, newest first. */
export async function listMails(em: Em, userId: string, paging: { page: number; per_page: number }) {
  const db = kysely(em.fork());
  const count = await db
    .selectFrom('mail_deliveries')
    .select((eb) => countAll(eb).as('n'))
    .where('user_id', '=', userId)
    .executeTakeFirst();
  const rows = await db
    .selectFrom('mail_deliveries')
    .select(COLUMNS)
    .$narrowType<{ status: MailStatus }>()
    .where('user_id', '=', userId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(paging.per_page)
    .offset((paging.page - 1) * paging.per_page)
    .execute();
  return {
    mails: rows.map(mailDto),
    total: count?.n ?? 0,
    page: paging.page,
    per_page: paging.per_page,
  };
}

/** The mails about these records (`sale:16`, `checkout:<uuid>`: what their senders named), oldest first. */
export async function mailsAbout(em: Em, about: readonly string[], limit = 100) {
  if (!about.length) return [];
  const rows = await kysely(em)
    .selectFrom('mail_deliveries')
    .select(COLUMNS)
    .$narrowType<{ status: MailStatus }>()
    .where('about', 'in', about)
    .orderBy('created_at')
    .orderBy('id')
    .limit(limit)
    .execute();
  return rows.map(mailDto);
}

export type MailListStatus = 'failed' | 'sending' | 'stuck';

/**
 * Stuck: still 'sending' with a claim older than its lease — the attempt that claimed it is taken for
 * dead and no other has claimed it since (a worker down, its job lost). An unclaimed row (just put on
 * record, or put back by a resend) is waiting for its job, not stuck.
 */
const stuck = (eb: ExpressionBuilder<DB, 'mail_deliveries'>) =>
  eb.and([eb('status', '=', 'sending'), eb('claimed_at', '<', leaseStart())]);
const WHERE: Record<MailListStatus, (eb: ExpressionBuilder<DB, 'mail_deliveries'>) => Expression<SqlBool>> = {
  failed: (eb) => eb('status', '=', 'failed'),
  sending: (eb) => eb('status', '=', 'sending'),
  stuck,
};

/**
 * Every e-mail in `status` (the failed-mail view: 'failed'; 'stuck': sending for longer than the claim
 * lease), newest first, with the member it is for.
 */
export async function listMailsByStatus(orm: Orm, status: MailListStatus, paging: { page: number; per_page: number }) {
  const db = kysely(orm.em.fork());
  // `status <> 'sent'` lets PostgreSQL use the partial index of unsent mails.
  const count = await db
    .selectFrom('mail_deliveries')
    .select((eb) => countAll(eb).as('n'))
    .where('status', '<>', 'sent')
    .where(WHERE[status])
    .executeTakeFirst();
  const rows = await db
    .selectFrom('mail_deliveries')
    .select(COLUMNS)
    .$narrowType<{ status: MailStatus }>()
    .where('status', '<>', 'sent')
    .where(WHERE[status])
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(paging.per_page)
    .offset((paging.page - 1) * paging.per_page)
    .execute();
  return {
    mails: rows.map((row) => ({ ...mailDto(row), user_id: row.user_id })),
    total: count?.n ?? 0,
    page: paging.page,
    per_page: paging.per_page,
  };
}

/**
 * What the admin menu shows, counted in the database (so it survives Redis losing its data): e-mails
 * refused for good and not resent since (`failed_for_good`), those stuck in 'sending' past the claim lease
 * (`stuck`), and those failing for now and retried automatically (`retrying`).
 */
/**
 * E-mails not sent, counted in the database (they survive Redis losing its data), for the metrics, the
 * operations view and the admin menu alike: failed for good (refused, not resent), retrying (a temporary
 * failure waiting for its next attempt), pending (being sent) and stuck (claimed by a sender longer
 * than the claim lease: its process died mid-send).
 */
export async function mailFigures(em: Em): Promise<{ failed: number; retrying: number; pending: number; stuck: number }> {
  const row = await kysely(em)
    .selectFrom('mail_deliveries')
    .select((eb) => [
      eb
        .cast<number>(
          eb.fn.countAll().filterWhere((f) => f.and([f('status', '=', 'failed'), f.ref('permanent')])),
          'integer',
        )
        .as('failed'),
      eb
        .cast<number>(
          eb.fn.countAll().filterWhere((f) => f.and([f('status', '=', 'failed'), f.not(f.ref('permanent'))])),
          'integer',
        )
        .as('retrying'),
      eb.cast<number>(eb.fn.countAll().filterWhere('status', '=', 'sending'), 'integer').as('pending'),
      eb.cast<number>(eb.fn.countAll().filterWhere(stuck), 'integer').as('stuck'),
    ])
    .where('status', '<>', 'sent')
    .executeTakeFirst();
  return { failed: row?.failed ?? 0, retrying: row?.retrying ?? 0, pending: row?.pending ?? 0, stuck: row?.stuck ?? 0 };
}

export async function mailSummary(orm: Orm) {
  const figures = await mailFigures(orm.em.fork() as Em);
  return {
    summary: {
      failed_for_good: figures.failed,
      stuck: figures.stuck,
      retrying: figures.retrying,
      lease_seconds: CLAIM_LEASE_SECONDS,
    },
  };
}

export const MAIL_NOT_FOUND = 'メールが見つかりませんでした。';

/**
 * An operator sends a failed e-mail — or one stuck in 'sending' past its claim lease — again: the
 * delivery is put back to 'sending' (unclaimed, no longer permanent), audited, and its event's job
 * enqueued under a new job id. The job renders the e-mail
 * afresh and sends it with the delivery's own Message-ID; other e-mails of the event, sent already,
 * are skipped. Should Redis be unreachable, the row goes back to failed and the answer is 503.
 */
export async function resendMail(deps: { orm: Orm; queues: Queues; log: Logger }, actor: Actor, id: string) {
  const em = deps.orm.em.fork() as Em;
  const db = kysely(em);
  const found = await db
    .selectFrom('mail_deliveries')
    .select((eb) => [...COLUMNS, 'key', 'event', stuck(eb).as('stuck')])
    .$narrowType<{ status: MailStatus; stuck: boolean }>()
    .where('id', '=', id)
    .executeTakeFirst();
  if (!found) throw new AppError('not_found', MAIL_NOT_FOUND);
  if (found.status !== 'failed' && !found.stuck) {
    throw new AppError(
      'conflict',
      found.status === 'sent' ? 'このメールは送信済みです。' : 'このメールは送信中です。結果が出るまでお待ちください。',
    );
  }
  // The event to run again: kept on the delivery; for an older row, the data of its job, if Redis has it.
  const eventId = found.key.split(':')[0] ?? '';
  const stored = found.event as DomainEvent | null;
  const job = stored ? null : await deps.queues.mail.getJob(eventId).catch(() => undefined);
  const event = stored ?? (job?.data as DomainEvent | undefined) ?? null;
  if (!event) throw new AppError('conflict', 'このメールは送信の元になった記録が残っていないため、再送信できません。');

  await em.transactional(async (tx) => {
    const updated = await kysely(tx)
      .updateTable('mail_deliveries')
      .set({ status: 'sending', permanent: false, claimed_at: null })
      .where('id', '=', id)
      .where((eb) => eb.or([eb('status', '=', 'failed'), stuck(eb)]))
      .returning('id')
      .execute();
    if (!updated[0]) throw new AppError('conflict');
    recordAudit(tx, actor, {
      action: 'mail.resend',
      targetType: 'mail',
      targetId: id,
      before: {
        status: found.status,
        ...(found.stuck ? { stuck: true } : {}),
        permanent: found.permanent,
        error: found.error,
        attempts: found.attempts,
      },
      after: { status: 'sending' },
    });
  });
  try {
    await deps.queues.mail.add(event.name, event, { jobId: `${event.id}-resend-${randomUUID()}` });
  } catch (error) {
    // Redis is unreachable: nothing would send it, so it goes back to failed (as it was) and the
    // operator is told to try again.
    deps.log.warn('resend: could not enqueue the mail job', { mail: id, error: String(error) });
    await db
      .updateTable('mail_deliveries')
      .set({ status: 'failed', permanent: found.permanent })
      .where('id', '=', id)
      .where('status', '=', 'sending')
      .where('claimed_at', 'is', null)
      .execute()
      .catch(() => undefined);
    throw new AppError('unavailable', 'ただいま再送信できません。しばらく時間をおいてから再度お試しください。');
  }
  const after = await db
    .selectFrom('mail_deliveries')
    .select(COLUMNS)
    .$narrowType<{ status: MailStatus }>()
    .where('id', '=', id)
    .executeTakeFirst();
  return { mail: { ...mailDto(after as MailRow), user_id: after?.user_id ?? null } };
}
