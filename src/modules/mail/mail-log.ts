import type { Expression, ExpressionBuilder, SqlBool } from 'kysely';
import { countAll, type DB, db as kysely } from '../../db/kysely.ts';
import type { Em, Orm } from '../../db/orm.ts';
import type { MailStatus } from './entities/mail-delivery.entity.ts';
import { mailKindLabel } from './kinds.ts';
import { CLAIM_LEASE_SECONDS, leaseStart } from './send.ts';

export interface MailRow {
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

export const COLUMNS = [
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

export function mailDto(row: MailRow) {
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
export const stuck = (eb: ExpressionBuilder<DB, 'mail_deliveries'>) =>
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
