import * as v from 'valibot';

const numberInRange = (label: string, max: number) =>
  v.pipe(
    v.string(`${label}が正しくありません。`),
    v.regex(/^\d{1,6}$/, `${label}が正しくありません。`),
    v.transform(Number),
    v.minValue(1, `${label}が正しくありません。`),
    v.maxValue(max, `${label}が正しくありません。`),
  );

/** GET /api/mails */
export const MailsQuery = v.object({
  status: v.optional(v.picklist(['failed', 'sending', 'stuck'], '状態が正しくありません。'), 'failed'),
  page: v.optional(numberInRange('ページ番号', 100_000), '1'),
  per_page: v.optional(numberInRange('表示件数', 100), '20'),
});
