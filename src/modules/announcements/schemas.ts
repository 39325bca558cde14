import * as v from 'valibot';
import { paging, rules } from '../../http/validate.ts';
import { printable } from '../../lib/printable-text.ts';

const SUBJECT_MAX = 100;
const BODY_MAX = 10_000;

/** POST /api/announcements, its preview and its test send. */
export const AnnouncementInput = v.object({
  subject: v.pipe(rules.requiredString('件名', SUBJECT_MAX), printable('件名')),
  body: v.pipe(
    v.string('本文を入力してください。'),
    v.transform((text) => text.replace(/\r\n?/g, '\n').trim()),
    v.minLength(1, '本文を入力してください。'),
    printable('本文', { multiline: true }),
    v.maxLength(BODY_MAX, `本文は${BODY_MAX.toLocaleString('ja-JP')}文字以内で入力してください。`),
  ),
  license_id: v.optional(
    v.nullable(
      v.pipe(
        v.number('ライセンスを選び直してください。'),
        v.integer('ライセンスを選び直してください。'),
        v.minValue(1, 'ライセンスを選び直してください。'),
        v.maxValue(2_147_483_647, 'ライセンスを選び直してください。'),
      ),
    ),
  ),
});
export type AnnouncementData = v.InferOutput<typeof AnnouncementInput>;

export const AnnouncementsQuery = v.object({ ...paging });

/** POST /api/announcements/legal-notice: the revision the administrator read, and whether a second notice is meant. */
export const LegalNoticeInput = v.object({
  revision: v.pipe(
    v.string('改定を確認してから送信してください。'),
    v.regex(/^\d{4}-\d{2}-\d{2}$/, '改定を確認してから送信してください。'),
  ),
  resend: v.optional(v.boolean('再送信するかどうかを選んでください。'), false),
});
export type LegalNoticeData = v.InferOutput<typeof LegalNoticeInput>;
