import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { jsonb, db as kysely, now } from '../../db/kysely.ts';
import type { Em } from '../../db/orm.ts';
import type { DomainEvent } from '../../events/contracts.ts';
import { PermanentJobError } from '../../jobs/errors.ts';
import type { Logger } from '../../lib/logger.ts';
import { site } from '../../site-settings.ts';
import type { MailKind } from './kinds.ts';
import type { Mailer, MailMessage } from './mailer.ts';

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[ch] ?? ch);

export interface MailContent {
  subject: string;
  greeting: string;
  paragraphs: string[];
  action?: { label: string; url: string };
  notes?: string[];
}

/**
 * The HTML part shows the action as a button, the plain-text part only as its URL below the text: a
 * sentence written for the button (「下のボタンから」) names the URL in plain text (「以下の URL から」).
 */
const forPlainText = (paragraph: string) => paragraph.replaceAll('下のボタンから', '以下の URL から');

/** Builds the text and HTML bodies of a Japanese e-mail with the shop's signature. */
export function renderMail(content: MailContent): { subject: string; text: string; html: string } {
  const subject = `【${site.shopName}】${content.subject}`;
  const signature = [`${site.companyName}`, `${site.address}`, `${site.contact}`];
  const text = [
    content.greeting,
    '',
    ...content.paragraphs.flatMap((p) => [forPlainText(p), '']),
    ...(content.action ? [`${content.action.label}：`, content.action.url, ''] : []),
    ...(content.notes ?? []).map((n) => `※ ${n}`),
    '',
    '――――――――――――――――',
    ...signature,
  ].join('\n');
  const html = `<!doctype html><html lang="ja"><body style="font-family:sans-serif;line-height:1.7;color:#222">
<p>${escapeHtml(content.greeting)}</p>
${content.paragraphs.map((p) => `<p>${escapeHtml(p)}</p>`).join('\n')}
${content.action ? `<p><a href="${escapeHtml(content.action.url)}" style="display:inline-block;padding:10px 20px;background:#0b5394;color:#fff;text-decoration:none;border-radius:4px">${escapeHtml(content.action.label)}</a></p><p style="font-size:12px;color:#555">ボタンが開けない場合は次のURLをブラウザに貼り付けてください：<br>${escapeHtml(content.action.url)}</p>` : ''}
${(content.notes ?? []).map((n) => `<p style="font-size:12px;color:#555">※ ${escapeHtml(n)}</p>`).join('\n')}
<hr><p style="font-size:12px;color:#555">${signature.map(escapeHtml).join('<br>')}</p>
</body></html>`;
  return { subject, text, html };
}

export type SendResult = 'sent' | 'skipped';

const MAX_ERROR_LENGTH = 2000;

/**
 * How long a claim keeps other attempts away from a delivery. Longer than one send takes (its SMTP
 * phases are limited to 30 s each) and as long as the shutdown drain (src/main.ts); after it, the
 * claimant is taken for dead and the e-mail is sent again, with the same Message-ID.
 */
export const CLAIM_LEASE_SECONDS = 120;

/** The time before which a claim has run out of lease. */
export const leaseStart = () => sql<string>`now() - make_interval(secs => ${CLAIM_LEASE_SECONDS})`;

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
 * A refusal for good: 5xx to the recipient (RCPT TO) or the message (DATA). A 5xx to anything else
 * means our settings are wrong for every e-mail, so it is retried like any other failure.
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
  const row = await claim(db, key, message, messageId, stored);
  if (!row) return 'skipped';
  try {
    await mailer.send({ ...message, messageId });
  } catch (error) {
    await recordFailure(db, row, error, { userId, template, log });
  }
  // If this fails (database gone), the claim goes stale and a later attempt sends the same e-mail again.
  await db
    .updateTable('mail_deliveries')
    .set({ status: 'sent', sent_at: now(), error: null, permanent: false, claimed_at: null })
    .where('id', '=', row.id)
    .execute();
  return 'sent';
}

type Db = ReturnType<typeof kysely>;
type Claim = { id: string; attempts: number };

/** Step 2: the claim, or null when there is nothing to send; MailInFlightError while another attempt holds it. */
async function claim(
  db: Db,
  key: string,
  message: MailMessage,
  messageId: string,
  stored: ReturnType<typeof jsonb> | null,
): Promise<Claim | null> {
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
  if (row) return row;
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
  if (!current || current.status === 'sent' || current.permanent) return null;
  throw new MailInFlightError(key, Math.max(1_000, Math.ceil((current.lease_left ?? 0) * 1000) + 1_000));
}

/** Step 4: records the failure and throws (PermanentJobError for a refusal for good). */
async function recordFailure(
  db: Db,
  row: Claim,
  error: unknown,
  { userId, template, log }: { userId: string | null | undefined; template: MailKind; log?: Logger },
): Promise<never> {
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
