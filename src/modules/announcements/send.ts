import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import { db as kysely, now } from '../../db/kysely.ts';
import type { Em } from '../../db/orm.ts';
import { recordEvent, transact } from '../../events/outbox.ts';
import type { EventHandler, JobContext, JobResult } from '../../jobs/context.ts';
import { announcementAudience, announcementRecipients } from '../accounts/index.ts';
import { licenseNames } from '../licenses/index.ts';
import { isPermanentSmtpError } from '../mail/index.ts';
import type { AnnouncementDraft } from './compose.ts';
import type { AnnouncementKind } from './entities/announcement.entity.ts';
import { composeOfKind } from './mail-of-kind.ts';

/** A batch job sends for about this long, then records the next batch (jobs stay short; a kill loses little). */
const BATCH_SECONDS = 10;
/** A recipient refused for now (SMTP 4xx) is tried again in later batches, this many times in all. */
const MAX_ATTEMPTS = 5;

type Db = ReturnType<typeof kysely>;
type Member = Awaited<ReturnType<typeof announcementRecipients>>[number];

/** Takes the members to mail (the kind's audience), once: one row each, by a single insert … select. */
async function start(em: Em, id: string, kind: AnnouncementKind): Promise<void> {
  await transact(em, async (tx) => {
    const started = await kysely(tx)
      .updateTable('announcements')
      .set({ state: 'sending', started_at: now() })
      .where('id', '=', id)
      .where('started_at', 'is', null)
      .where('state', '=', 'queued')
      .returning('id')
      .executeTakeFirst();
    if (!started) return;
    await kysely(tx)
      .insertInto('announcement_recipients')
      .columns(['announcement_id', 'user_id'])
      .expression(announcementAudience(tx, id, kind))
      .onConflict((oc) => oc.doNothing())
      .execute();
  });
}

/** Recipients claimed at once: their details come in one query; a kill leaves them to be claimed again after the lease. */
const CHUNK = 20;

/**
 * Claims up to `limit` recipients just before their mails: pending, or claimed by an attempt taken for
 * dead (older than the job lock). The announcement must still be sending: a cancel stops the next claim.
 */
async function claim(db: Db, id: string, leaseMs: number, limit: number) {
  return db
    .updateTable('announcement_recipients')
    .set((eb) => ({ status: 'sending', claimed_at: now(), attempts: eb('attempts', '+', 1) }))
    .where('announcement_id', '=', id)
    .where('user_id', 'in', (eb) =>
      eb
        .selectFrom('announcement_recipients')
        .select('user_id')
        .where('announcement_id', '=', id)
        .where((w) =>
          w.or([
            w('status', '=', 'pending'),
            w.and([
              w('status', '=', 'sending'),
              w('claimed_at', '<', sql<string>`now() - make_interval(secs => ${leaseMs / 1000})`),
            ]),
          ]),
        )
        .orderBy('user_id')
        .limit(limit)
        .forUpdate()
        .skipLocked(),
    )
    .where((eb) => eb.exists(eb.selectFrom('announcements').select('id').where('id', '=', id).where('state', '=', 'sending')))
    .returning(['user_id', 'attempts'])
    .execute();
}

const mark = (
  db: Db,
  id: string,
  userId: string,
  values: { status: string; error?: string | null; sent_at?: ReturnType<typeof now> },
) =>
  db
    .updateTable('announcement_recipients')
    .set({ claimed_at: null, error: null, ...values })
    .where('announcement_id', '=', id)
    .where('user_id', '=', userId)
    .execute();

async function draftOf(em: Em, row: { subject: string; body: string; license_id: number | null }): Promise<AnnouncementDraft> {
  const name = row.license_id ? (await licenseNames(em, [row.license_id])).get(row.license_id) : undefined;
  return { subject: row.subject, body: row.body, license: row.license_id && name ? { id: row.license_id, name } : null };
}

/** Sends one mail; answers what became of the recipient, or throws when the mail server itself is unreachable. */
async function sendTo(
  ctx: JobContext,
  db: Db,
  id: string,
  draft: AnnouncementDraft & { kind: AnnouncementKind },
  claim: { user_id: string; attempts: number },
  member: Member | undefined,
) {
  // Out of the audience since the send began (opted out, unverified, banned, withdrawn).
  if (!member) return mark(db, id, claim.user_id, { status: 'skipped' });
  const mail = composeOfKind(
    draft.kind,
    draft,
    { lastName: member.last_name, firstName: member.first_name, token: member.token },
    { appUrl: ctx.env.appUrl, mailFrom: ctx.env.mailFrom },
  );
  try {
    await ctx.mailer.send({
      to: member.email,
      ...mail,
      bulk: true,
      messageId: ctx.mailer.messageIdFor(`announcement:${id}:${claim.user_id}`),
    });
  } catch (error) {
    const message = (error instanceof Error ? error.message : String(error)).slice(0, 2000);
    const code = (error as { responseCode?: unknown }).responseCode;
    if (isPermanentSmtpError(error) || (typeof code === 'number' && claim.attempts >= MAX_ATTEMPTS)) {
      return mark(db, id, claim.user_id, { status: 'failed', error: message });
    }
    await mark(db, id, claim.user_id, { status: 'pending', error: message });
    if (typeof code === 'number') return;
    throw error;
  }
  // A kill before this line sends this one mail again, with the same Message-ID (decision 0007).
  return mark(db, id, claim.user_id, { status: 'sent', sent_at: now() });
}

const cancelled = async (db: Db, id: string) =>
  (await db.selectFrom('announcements').select('state').where('id', '=', id).executeTakeFirst())?.state === 'cancelled';

/** When nothing is left to claim: finished, or a claim of a dead attempt still within its lease (ms to wait). */
async function remaining(db: Db, id: string): Promise<{ pending: number; inFlightMs: number | null }> {
  const row = await db
    .selectFrom('announcement_recipients')
    .select((eb) => [
      eb.fn.count<string>('user_id').filterWhere('status', '=', 'pending').as('pending'),
      sql<number | null>`extract(epoch from max(${eb.ref('claimed_at')}) - now())::float8 * 1000`.as('newest_claim_ms'),
    ])
    .where('announcement_id', '=', id)
    .where('status', 'in', ['pending', 'sending'])
    .executeTakeFirst();
  return { pending: Number(row?.pending ?? 0), inFlightMs: row?.newest_claim_ms ?? null };
}

/**
 * AnnouncementRequested / AnnouncementBatchDue: one batch of mails at ANNOUNCEMENT_RATE_PER_MINUTE,
 * then the next batch's event, or the announcement done. Only the job of the announcement's current
 * batch sends; a recipient is claimed before its mail and marked sent after it, so a job taken over
 * after a kill sends nobody twice (but the one mail in flight, with its same Message-ID).
 */
export const onAnnouncementDue: EventHandler<'AnnouncementRequested' | 'AnnouncementBatchDue'> = async (ctx, event) => {
  const { announcementId: id } = event.payload;
  const batch = 'batch' in event.payload ? event.payload.batch : 0;
  const db = kysely(ctx.em);
  const row = await db.selectFrom('announcements').selectAll().where('id', '=', id).executeTakeFirst();
  if (!row || row.batch !== batch || row.state === 'cancelled' || row.state === 'done') return 'skipped';
  const kind = row.kind as AnnouncementKind;
  await start(ctx.em, id, kind);
  const draft = { ...(await draftOf(ctx.em, row)), kind };
  const rate = ctx.env.announcementRatePerMinute;
  const size = Math.max(1, Math.ceil((rate / 60) * BATCH_SECONDS));
  const leaseMs = ctx.env.jobLockMs;
  const began = Date.now();
  for (let sent = 0; sent < size; ) {
    const claims = await claim(db, id, leaseMs, Math.min(CHUNK, size - sent));
    if (!claims.length) {
      const left = await remaining(db, id);
      // A dead attempt's claim: wait until it may be taken over, within this job's time.
      if (left.pending === 0 && left.inFlightMs !== null && Date.now() - began < BATCH_SECONDS * 1000) {
        await sleep(Math.max(100, Math.min(leaseMs + left.inFlightMs + 50, leaseMs)));
        continue;
      }
      break;
    }
    const members = new Map(
      (
        await announcementRecipients(
          ctx.em,
          claims.map((c) => c.user_id),
          kind,
        )
      ).map((m) => [m.id, m]),
    );
    for (const one of claims) {
      await sleep(Math.max(0, began + (sent * 60_000) / rate - Date.now()));
      // A cancel stops the next mail, not only the next claim.
      if (await cancelled(db, id)) {
        await db
          .updateTable('announcement_recipients')
          .set({ status: 'cancelled', claimed_at: null })
          .where('announcement_id', '=', id)
          .where('status', '=', 'sending')
          .execute();
        return 'done';
      }
      await sendTo(ctx, db, id, draft, one, members.get(one.user_id));
      sent++;
    }
  }
  return next(ctx.em, id, batch);
};

/** Records the next batch (once: the batch number moves only from this job's), or marks the announcement done. */
async function next(em: Em, id: string, batch: number): Promise<JobResult> {
  const left = await remaining(kysely(em), id);
  await transact(em, async (tx) => {
    if (left.pending === 0 && left.inFlightMs === null) {
      await kysely(tx)
        .updateTable('announcements')
        .set({ state: 'done', finished_at: now() })
        .where('id', '=', id)
        .where('state', '=', 'sending')
        .execute();
      return;
    }
    const moved = await kysely(tx)
      .updateTable('announcements')
      .set({ batch: batch + 1 })
      .where('id', '=', id)
      .where('batch', '=', batch)
      .where('state', '=', 'sending')
      .returning('id')
      .executeTakeFirst();
    if (moved) recordEvent(tx, 'AnnouncementBatchDue', { announcementId: id, batch: batch + 1 });
  });
  return 'done';
}
