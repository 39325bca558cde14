import { randomUUID } from 'node:crypto';
import { db as kysely } from '../../db/kysely.ts';
import type { Em, Orm } from '../../db/orm.ts';
import { recordEvent, transact } from '../../events/outbox.ts';
import { AppError } from '../../http/errors.ts';
import { japaneseDay, revision } from '../../legal-texts.ts';
import { japanTime } from '../../lib/japan-time.ts';
import { legalNoticeAudienceSize } from '../accounts/index.ts';
import type { Actor } from '../audit/index.ts';
import { composeLegalNotice, effectiveAtText, LEGAL_NOTICE_SUBJECT, legalNoticeBody } from './legal-notice-mail.ts';
import type { LegalNoticeData } from './schemas.ts';
import { legalNoticesOf, queueAnnouncement } from './service.ts';

type Notice = Awaited<ReturnType<typeof legalNoticesOf>>[number];

/** The current revision, its notice as a member reads it, how many it would reach, and the notices already sent. */
export async function legalNoticeStatus(orm: Orm, appUrl: string) {
  const em = orm.em.fork() as Em;
  const mail = composeLegalNotice(
    { subject: LEGAL_NOTICE_SUBJECT, body: legalNoticeBody(appUrl) },
    { lastName: '（会員の姓）', firstName: '（名）' },
  );
  return {
    revision: {
      id: revision.id,
      revised_on: revision.revisedOn,
      effective_on: revision.effectiveOn,
      effective_at: effectiveAtText(),
    },
    preview: { subject: mail.subject, text: mail.text },
    audience: await legalNoticeAudienceSize(em),
    notices: await legalNoticesOf(em, revision.id),
  };
}

/** The notice to the administrator's own address, as a job (request handlers never wait on SMTP). */
export async function requestLegalNoticeTest(orm: Orm, actor: Actor, appUrl: string): Promise<void> {
  await transact(orm.em as Em, async (tx) => {
    recordEvent(tx, 'AnnouncementTestRequested', {
      userId: actor.id,
      subject: LEGAL_NOTICE_SUBJECT,
      body: legalNoticeBody(appUrl),
      licenseId: null,
      kind: 'legal_notice',
    });
  });
}

function refusal(earlier: Notice[]): AppError | null {
  const running = earlier.find((n) => n.state === 'queued' || n.state === 'sending');
  if (running) {
    return new AppError('conflict', 'この改定のお知らせは送信中です。終わるのを待つか、中止してから送り直してください。', {
      details: { code: 'legal_notice_in_progress' },
    });
  }
  const last = earlier.at(-1);
  if (!last) return null;
  const who = last.created_by_email ? `${last.created_by_email} さん、` : '';
  return new AppError(
    'conflict',
    `${japaneseDay(revision.revisedOn)}改定のお知らせは送信済みです（${japanTime(last.created_at)}、${who}${last.sent.toLocaleString('ja-JP')}件）。もう一度送る場合は、確認のうえ再送信してください。`,
    { details: { code: 'legal_notice_already_sent' } },
  );
}

/**
 * Sends the notice of the current revision to every member with a verified address (decision 0049),
 * audited, as an announcement of kind `legal_notice`. A second notice of the same revision needs
 * `resend`; none while one is still being sent. Two administrators at once: the lock makes one wait.
 */
export async function sendLegalNotice(orm: Orm, actor: Actor, input: LegalNoticeData, appUrl: string): Promise<string> {
  if (input.revision !== revision.id) {
    throw new AppError('conflict', '規約の改定内容が更新されています。画面を読み込み直し、内容を確認してから送信してください。', {
      details: { code: 'revision_changed', revision: revision.id },
    });
  }
  const id = randomUUID();
  await transact(orm.em as Em, async (tx) => {
    await kysely(tx)
      .selectNoFrom((eb) =>
        eb.fn('pg_advisory_xact_lock', [eb.fn('hashtext', [eb.val(`legal-notice:${revision.id}`)])]).as('locked'),
      )
      .execute();
    const earlier = await legalNoticesOf(tx, revision.id);
    const refused = refusal(earlier);
    if (refused && (!input.resend || refused.details?.code === 'legal_notice_in_progress')) throw refused;
    queueAnnouncement(
      tx,
      actor,
      id,
      {
        kind: 'legal_notice',
        revision: revision.id,
        subject: LEGAL_NOTICE_SUBJECT,
        body: legalNoticeBody(appUrl),
        licenseId: null,
      },
      {
        action: 'announcement.legal_notice',
        after: { subject: LEGAL_NOTICE_SUBJECT, revision: revision.id, resend: earlier.length > 0 },
      },
    );
  });
  return id;
}
