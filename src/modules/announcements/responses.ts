import * as v from 'valibot';
import { operation, pageEntries, pathIds, timestamp } from '../../http/openapi.ts';
import { AnnouncementInput, AnnouncementsQuery, LegalNoticeInput } from './schemas.ts';

const TAGS = ['お知らせ配信'];
const path = { id: pathIds.uuid };

/** An announcement and its progress: total (recipients taken at the start), sent, failed, state. */
const AnnouncementAnswer = v.pipe(
  v.object({
    id: v.string(),
    subject: v.string(),
    body: v.string(),
    license_id: v.nullable(v.number()),
    kind: v.picklist(['marketing', 'legal_notice']),
    revision: v.nullable(v.string()),
    state: v.picklist(['queued', 'sending', 'done', 'cancelled']),
    created_by_email: v.nullable(v.string()),
    created_at: timestamp(),
    started_at: v.nullable(timestamp()),
    finished_at: v.nullable(timestamp()),
    cancelled_at: v.nullable(timestamp()),
    total: v.number(),
    sent: v.number(),
    failed: v.number(),
    skipped: v.number(),
    cancelled: v.number(),
    pending: v.number(),
  }),
  v.metadata({ ref: 'Announcement' }),
);

/** The current terms revision, its notice as members read it, its audience now, and the notices already sent. */
const LegalNoticeStatus = v.object({
  revision: v.object({ id: v.string(), revised_on: v.string(), effective_on: v.string(), effective_at: v.string() }),
  preview: v.object({ subject: v.string(), text: v.string() }),
  audience: v.number(),
  notices: v.array(AnnouncementAnswer),
});

export const announcementDocs = {
  list: operation('get', {
    summary: 'お知らせ配信の一覧',
    tags: TAGS,
    access: 'admin',
    permission: 'members:read',
    query: AnnouncementsQuery,
    answers: { 200: v.object({ announcements: v.array(AnnouncementAnswer), ...pageEntries }) },
  }),
  create: operation('post', {
    summary: 'お知らせを配信する（配信を希望した会員全員へ）',
    tags: TAGS,
    access: 'admin',
    permission: 'members:update',
    body: AnnouncementInput,
    answers: { 202: v.object({ id: v.string() }) },
  }),
  preview: operation('post', {
    summary: 'お知らせのプレビュー（会員に届く文面）',
    tags: TAGS,
    access: 'admin',
    permission: 'members:update',
    body: AnnouncementInput,
    answers: { 200: v.object({ subject: v.string(), text: v.string(), list_unsubscribe: v.string() }) },
  }),
  test: operation('post', {
    summary: 'お知らせを自分宛てにテスト送信する',
    tags: TAGS,
    access: 'admin',
    permission: 'members:update',
    body: AnnouncementInput,
    answers: { 202: v.object({ message: v.string() }) },
  }),
  show: operation('get', {
    summary: 'お知らせ配信の進み具合',
    tags: TAGS,
    access: 'admin',
    permission: 'members:read',
    path,
    answers: { 200: AnnouncementAnswer },
  }),
  cancel: operation('post', {
    summary: 'お知らせ配信を中止する',
    tags: TAGS,
    access: 'admin',
    permission: 'members:update',
    path,
    answers: { 200: AnnouncementAnswer },
    errors: [409],
  }),
  legalNotice: operation('get', {
    summary: '利用規約・プライバシーポリシー改定のお知らせ（内容・送信対象の人数・送信の記録）',
    tags: TAGS,
    access: 'admin',
    permission: 'members:read',
    answers: { 200: LegalNoticeStatus },
  }),
  sendLegalNotice: operation('post', {
    summary: '改定のお知らせを送る（メールアドレス確認済みの全会員へ、配信設定にかかわらず）',
    tags: TAGS,
    access: 'admin',
    permission: 'members:update',
    body: LegalNoticeInput,
    answers: { 202: v.object({ id: v.string() }) },
    errors: [409],
  }),
  testLegalNotice: operation('post', {
    summary: '改定のお知らせを自分宛てにテスト送信する',
    tags: TAGS,
    access: 'admin',
    permission: 'members:update',
    answers: { 202: v.object({ message: v.string() }) },
  }),
};
