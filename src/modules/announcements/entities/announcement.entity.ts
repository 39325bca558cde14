import { defineEntity, p } from '@mikro-orm/core';
import { createdAt } from '../../../db/columns.ts';

type AnnouncementState = 'queued' | 'sending' | 'done' | 'cancelled';
/** marketing: to those who asked (特定電子メール法); legal_notice: 第7条's notice of a terms revision, to every member. */
export type AnnouncementKind = 'marketing' | 'legal_notice';
type RecipientStatus = 'pending' | 'sending' | 'sent' | 'failed' | 'skipped' | 'cancelled';

/** お知らせ配信 (docs/decisions/0048) and the notice of a terms revision (0049). */
const AnnouncementSchema = defineEntity({
  name: 'Announcement',
  tableName: 'announcements',
  indexes: [
    {
      name: 'announcements_created_at_index',
      expression: 'create index "announcements_created_at_index" on "announcements" ("created_at" desc, "id")',
    },
    {
      name: 'announcements_revision_index',
      expression:
        'create index "announcements_revision_index" on "announcements" ("revision", "created_at") where "kind" = \'legal_notice\'',
    },
  ],
  properties: {
    id: p.uuid().primary(),
    subject: p.string().length(150),
    body: p.text(),
    licenseId: p.integer().fieldName('license_id').nullable(),
    kind: p.string().length(16).$type<AnnouncementKind>().default('marketing'),
    // The revision of the terms a legal notice announces (legal-texts.ts `revision.id`).
    revision: p.string().length(32).nullable(),
    state: p.string().length(16).$type<AnnouncementState>().default('queued'),
    createdBy: p.string().length(255).fieldName('created_by').nullable(),
    createdByEmail: p.string().length(254).fieldName('created_by_email').nullable(),
    // The batch whose job may send now: a stale job (taken over after a kill) finds it moved on.
    batch: p.integer().default(0),
    // Set once, when the recipients were taken (the set-based insert).
    startedAt: p.datetime().fieldName('started_at').nullable(),
    finishedAt: p.datetime().fieldName('finished_at').nullable(),
    cancelledAt: p.datetime().fieldName('cancelled_at').nullable(),
    createdAt: createdAt(),
  },
});
export class Announcement extends AnnouncementSchema.class {}
AnnouncementSchema.setClass(Announcement);

/** One row per recipient, claimed before its mail goes out and marked after: a resumed send skips the sent. */
const AnnouncementRecipientSchema = defineEntity({
  name: 'AnnouncementRecipient',
  tableName: 'announcement_recipients',
  indexes: [
    {
      name: 'announcement_recipients_status_index',
      expression:
        'create index "announcement_recipients_status_index" on "announcement_recipients" ("announcement_id", "status")',
    },
  ],
  properties: {
    announcementId: p.uuid().fieldName('announcement_id').primary(),
    userId: p.string().length(255).fieldName('user_id').primary(),
    status: p.string().length(16).$type<RecipientStatus>().default('pending'),
    attempts: p.integer().default(0),
    claimedAt: p.datetime().fieldName('claimed_at').nullable(),
    sentAt: p.datetime().fieldName('sent_at').nullable(),
    error: p.text().nullable(),
  },
});
export class AnnouncementRecipient extends AnnouncementRecipientSchema.class {}
AnnouncementRecipientSchema.setClass(AnnouncementRecipient);
