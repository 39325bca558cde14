import * as v from 'valibot';
import { DATES_REVERSED, datesInOrder, paging, rules } from '../../http/validate.ts';

const optionalText = (label: string, max: number, pattern?: RegExp) =>
  v.optional(
    v.pipe(
      v.string(`${label}が正しくありません。`),
      v.trim(),
      v.maxLength(max, `${label}は${max}文字以内で入力してください。`),
      v.check((text) => !pattern || text === '' || pattern.test(text), `${label}が正しくありません。`),
    ),
    '',
  );
const day = (label: string) =>
  v.optional(v.union([v.literal(''), rules.date()], `${label}は YYYY-MM-DD の形式の正しい日付で入力してください。`), '');

/** The screen's filters: every one optional; an empty one is no filter. Dates are Japan days, both ends included. */
const FILTERS = {
  actor: optionalText('操作者', 254),
  action: optionalText('操作', 64, /^[a-z][a-z0-9_]*(\.[a-z0-9_]+)*$/),
  target_type: optionalText('対象の種類', 32, /^[a-z][a-z0-9_]*$/),
  target_id: optionalText('対象のID', 64),
  from: day('開始日'),
  to: day('終了日'),
};

/** GET /api/audit-logs. */
export const AuditLogQuery = v.pipe(
  v.object({
    ...FILTERS,
    ...paging,
  }),
  v.forward(
    v.check((q) => datesInOrder(q), DATES_REVERSED),
    ['to'],
  ),
);

export type AuditLogQuery = v.InferOutput<typeof AuditLogQuery>;

/** GET /api/audit-logs/export.csv: the screen's filters and the file's encoding (CP932 for older Excel). */
export const AuditExportQuery = v.pipe(
  v.object({
    ...FILTERS,
    encoding: v.optional(v.picklist(['utf-8', 'shift_jis'], '文字コードは「utf-8」か「shift_jis」で指定してください。'), 'utf-8'),
  }),
  v.forward(
    v.check((q) => datesInOrder(q), DATES_REVERSED),
    ['to'],
  ),
);

export type AuditExportQuery = v.InferOutput<typeof AuditExportQuery>;
export type AuditFilters = Omit<AuditExportQuery, 'encoding'>;
