import { randomUUID } from 'node:crypto';
import { countAll, db as kysely, now } from '../../db/kysely.ts';
import type { Em, Orm } from '../../db/orm.ts';
import { recordEvent, transact } from '../../events/outbox.ts';
import { AppError, validationError } from '../../http/errors.ts';
import { type Actor, recordAudit } from '../audit/index.ts';
import { licenseNames } from '../licenses/index.ts';
import { composeAnnouncement } from './compose.ts';
import { Announcement, type AnnouncementKind } from './entities/announcement.entity.ts';
import type { AnnouncementData } from './schemas.ts';

export const ANNOUNCEMENT_NOT_FOUND = 'お知らせが見つかりませんでした。';

async function licenseOf(em: Em, licenseId: number | null | undefined) {
  if (!licenseId) return null;
  const name = (await licenseNames(em, [licenseId])).get(licenseId);
  if (!name) throw validationError({ license_id: ['ライセンスが見つかりませんでした。選び直してください。'] });
  return { id: licenseId, name };
}

/** The draft as a member would read it (a sample name and link), for the compose screen's preview. */
export async function previewAnnouncement(orm: Orm, input: AnnouncementData, env: { appUrl: string; mailFrom: string }) {
  const license = await licenseOf(orm.em.fork() as Em, input.license_id);
  const mail = composeAnnouncement(
    { subject: input.subject, body: input.body, license },
    { lastName: '（会員の姓）', firstName: '（名）', token: '（会員ごとの配信停止用の文字列）' },
    env,
  );
  return { subject: mail.subject, text: mail.text, list_unsubscribe: mail.headers['List-Unsubscribe'] };
}

/** The test send: to the administrator's own address, as a job (request handlers never wait on SMTP). */
export async function requestTestSend(orm: Orm, actor: Actor, input: AnnouncementData): Promise<void> {
  await licenseOf(orm.em.fork() as Em, input.license_id);
  await transact(orm.em as Em, async (tx) => {
    recordEvent(tx, 'AnnouncementTestRequested', {
      userId: actor.id,
      subject: input.subject,
      body: input.body,
      licenseId: input.license_id ?? null,
      kind: 'marketing',
    });
  });
}

/** Stores the announcement, audited, with the event that starts its send. */
export async function createAnnouncement(orm: Orm, actor: Actor, input: AnnouncementData): Promise<string> {
  const license = await licenseOf(orm.em.fork() as Em, input.license_id);
  const id = randomUUID();
  await transact(orm.em as Em, async (tx) => {
    queueAnnouncement(
      tx,
      actor,
      id,
      { subject: input.subject, body: input.body, licenseId: license?.id ?? null },
      {
        action: 'announcement.create',
        after: { subject: input.subject, license_id: license?.id ?? null, body_length: input.body.length },
      },
    );
  });
  return id;
}

/** One announcement queued in the caller's transaction, audited, with the event that starts its send. */
export function queueAnnouncement(
  tx: Em,
  actor: Actor,
  id: string,
  mail: { subject: string; body: string; licenseId: number | null; kind?: 'legal_notice'; revision?: string },
  audit: { action: string; after: Record<string, unknown> },
) {
  tx.create(Announcement, {
    id,
    ...mail,
    state: 'queued',
    batch: 0,
    createdBy: actor.id,
    createdByEmail: actor.email,
    createdAt: new Date(),
  });
  recordAudit(tx, actor, { ...audit, targetType: 'announcement', targetId: id });
  recordEvent(tx, 'AnnouncementRequested', { announcementId: id });
}

/** Stops further mails at once: the one being sent finishes, the rest are never claimed. */
export async function cancelAnnouncement(orm: Orm, actor: Actor, id: string) {
  await transact(orm.em as Em, async (tx) => {
    const db = kysely(tx);
    const row = await db.selectFrom('announcements').select(['state']).where('id', '=', id).forUpdate().executeTakeFirst();
    if (!row) throw new AppError('not_found', ANNOUNCEMENT_NOT_FOUND);
    if (row.state === 'done' || row.state === 'cancelled') {
      throw new AppError(
        'conflict',
        row.state === 'done' ? 'このお知らせは送信が完了しています。' : 'このお知らせは中止済みです。',
      );
    }
    await db.updateTable('announcements').set({ state: 'cancelled', cancelled_at: now() }).where('id', '=', id).execute();
    await db
      .updateTable('announcement_recipients')
      .set({ status: 'cancelled' })
      .where('announcement_id', '=', id)
      .where('status', '=', 'pending')
      .execute();
    recordAudit(tx, actor, {
      action: 'announcement.cancel',
      targetType: 'announcement',
      targetId: id,
      before: { state: row.state },
      after: { state: 'cancelled' },
    });
  });
  return announcementProgress(orm, id);
}

const COLUMNS = [
  'id',
  'subject',
  'body',
  'license_id',
  'kind',
  'revision',
  'state',
  'created_by_email',
  'created_at',
  'started_at',
  'finished_at',
  'cancelled_at',
] as const;

const iso = (at: string | Date | null) => (at ? new Date(at).toISOString() : null);

/** Counts by recipient status (total: everyone taken when the send began). */
async function countsOf(em: Em, ids: readonly string[]) {
  if (!ids.length) return new Map<string, Record<string, number>>();
  const rows = await kysely(em)
    .selectFrom('announcement_recipients')
    .select((eb) => ['announcement_id', 'status', countAll(eb).as('count')])
    .where('announcement_id', 'in', [...ids])
    .groupBy(['announcement_id', 'status'])
    .execute();
  const counts = new Map<string, Record<string, number>>();
  for (const row of rows) counts.set(row.announcement_id, { ...counts.get(row.announcement_id), [row.status]: row.count });
  return counts;
}

type Row = {
  [K in (typeof COLUMNS)[number]]: K extends 'license_id'
    ? number | null
    : K extends `${string}_at`
      ? string | Date | null
      : K extends 'kind'
        ? string
        : string | null;
};

function dto(row: Row, counts: Record<string, number> = {}) {
  const n = (status: string) => counts[status] ?? 0;
  return {
    id: String(row.id),
    subject: String(row.subject),
    body: String(row.body),
    license_id: row.license_id,
    kind: row.kind as AnnouncementKind,
    revision: row.revision,
    state: row.state as 'queued' | 'sending' | 'done' | 'cancelled',
    created_by_email: row.created_by_email,
    created_at: iso(row.created_at) ?? '',
    started_at: iso(row.started_at),
    finished_at: iso(row.finished_at),
    cancelled_at: iso(row.cancelled_at),
    total: Object.values(counts).reduce((a, b) => a + b, 0),
    sent: n('sent'),
    failed: n('failed'),
    skipped: n('skipped'),
    cancelled: n('cancelled'),
    pending: n('pending') + n('sending'),
  };
}

/** The legal notices of a terms revision, oldest first, with their progress (who sent them, when, how many). */
export async function legalNoticesOf(em: Em, revisionId: string) {
  const rows = await kysely(em)
    .selectFrom('announcements')
    .select(COLUMNS)
    .where('kind', '=', 'legal_notice')
    .where('revision', '=', revisionId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  const counts = await countsOf(
    em,
    rows.map((r) => r.id),
  );
  return rows.map((row) => dto(row, counts.get(row.id)));
}

export async function announcementProgress(orm: Orm, id: string) {
  const em = orm.em.fork() as Em;
  const row = await kysely(em).selectFrom('announcements').select(COLUMNS).where('id', '=', id).executeTakeFirst();
  if (!row) throw new AppError('not_found', ANNOUNCEMENT_NOT_FOUND);
  return dto(row, (await countsOf(em, [id])).get(id));
}

export async function listAnnouncements(orm: Orm, paging: { page: number; per_page: number }) {
  const em = orm.em.fork() as Em;
  const db = kysely(em);
  const [rows, total] = await Promise.all([
    db
      .selectFrom('announcements')
      .select(COLUMNS)
      .orderBy('created_at', 'desc')
      .orderBy('id')
      .limit(paging.per_page)
      .offset((paging.page - 1) * paging.per_page)
      .execute(),
    db
      .selectFrom('announcements')
      .select((eb) => countAll(eb).as('n'))
      .executeTakeFirstOrThrow(),
  ]);
  const counts = await countsOf(
    em,
    rows.map((r) => r.id),
  );
  return {
    announcements: rows.map((row) => dto(row, counts.get(row.id))),
    total: total.n,
    page: paging.page,
    per_page: paging.per_page,
  };
}
