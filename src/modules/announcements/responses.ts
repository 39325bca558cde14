import * as v from 'valibot';
import { operation, pageEntries, pathIds, timestamp } from '../../http/openapi.ts';
import { AnnouncementInput, AnnouncementsQuery } from './schemas.ts';

const TAGS = ['お知らせ配信'];
const path = { id: pathIds.uuid };

/** An announcement and its progress: total (recipients taken at the start), sent, failed, state. */
const AnnouncementAnswer = v.pipe(
  v.object({
    id: v.string(),
    subject: v.string(),
    body: v.string(),
    license_id: v.nullable(v.number()),
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
};
