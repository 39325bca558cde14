import * as v from 'valibot';
import { DATES_REVERSED, datesInOrder, paging, rules } from '../../http/validate.ts';
import { printable } from '../../lib/printable-text.ts';
import { parseOrderNumber } from '../sales/index.ts';
import { RECONCILIATION_DAYS } from './reconciliation.ts';

/** POST /api/licenses/stripe */
export const StartInput = v.object({
  licenseId: v.pipe(
    v.union([v.number(), v.pipe(v.string(), v.regex(/^\d+$/), v.transform(Number))], 'ライセンスを指定してください。'),
    v.integer('ライセンスを指定してください。'),
    v.minValue(1, 'ライセンスを指定してください。'),
  ),
  distribution: v.optional(v.boolean('配信の希望は「はい」か「いいえ」で選択してください。'), true),
});

const optionalDate = v.optional(v.union([v.literal(''), rules.date()], '日付が正しくありません。'));

export const EventsQuery = v.pipe(
  v.object({
    type: v.optional(
      v.pipe(
        v.string('種類が正しくありません。'),
        v.maxLength(100, '種類が正しくありません。'),
        v.regex(/^[a-z0-9_.]*$/, '種類が正しくありません。'),
      ),
    ),
    state: v.optional(v.picklist(['', 'received', 'processed', 'failed'], '状態が正しくありません。')),
    session: v.optional(
      v.pipe(
        v.string('Checkout Session が正しくありません。'),
        v.regex(/^[A-Za-z0-9_]{0,255}$/, 'Checkout Session が正しくありません。'),
      ),
    ),
    order_number: v.optional(
      v.pipe(
        v.string('注文番号が正しくありません。'),
        v.trim(),
        v.maxLength(30, '注文番号は「LS-2611-7K3Q9M」の形で入力してください。'),
        v.check((text) => text === '' || parseOrderNumber(text) !== null, '注文番号は「LS-2611-7K3Q9M」の形で入力してください。'),
      ),
    ),
    from: optionalDate,
    to: optionalDate,
    ...paging,
  }),
  v.forward(
    v.check((q) => datesInOrder(q), DATES_REVERSED),
    ['to'],
  ),
);
export const RunsQuery = v.object({
  ...paging,
  unacknowledged: v.optional(v.picklist(['', 'true', 'false'], '絞り込みの指定が正しくありません。'), ''),
});
export const AcknowledgeInput = v.object({
  note: v.optional(
    v.pipe(
      v.string('メモは文字で入力してください。'),
      printable('メモ', { multiline: true }),
      v.trim(),
      v.maxLength(500, 'メモは500文字以内で入力してください。'),
    ),
    '',
  ),
});
export const FindingAcknowledgeInput = v.object({
  note: v.pipe(
    v.string('メモを入力してください。'),
    printable('メモ', { multiline: true }),
    v.trim(),
    v.minLength(1, '確認した内容や対応をメモに入力してください。'),
    v.maxLength(500, 'メモは500文字以内で入力してください。'),
  ),
});
/** POST /api/payments/sessions/{id}/refund: why (1..200 characters, audited); the amount is the whole payment. */
export const FlaggedRefundInput = v.object({
  reason: v.pipe(
    v.string('返金の理由を入力してください。'),
    printable('返金の理由', { multiline: true }),
    v.trim(),
    v.minLength(1, '返金の理由を入力してください。'),
    v.check((text: string) => [...text].length <= 200, '返金の理由は200文字以内で入力してください。'),
  ),
});
export const SessionId = v.pipe(v.string(), v.regex(/^cs_[A-Za-z0-9_]{1,250}$/));
export const EventId = v.pipe(v.string(), v.regex(/^evt_[A-Za-z0-9_]{1,250}$/));
export const RunId = v.pipe(v.string(), v.uuid());

export const ReconcileInput = v.object({
  days: v.optional(
    v.pipe(
      v.number('日数は1〜90の整数で入力してください。'),
      v.integer('日数は1〜90の整数で入力してください。'),
      v.minValue(1, '日数は1〜90の整数で入力してください。'),
      v.maxValue(90, '日数は1〜90の整数で入力してください。'),
    ),
    RECONCILIATION_DAYS,
  ),
});

/** GET /api/payments/pending-konbini */
export const PendingQuery = v.object({
  state: v.optional(
    v.picklist(['awaiting', 'lapsed'], '表示する一覧は「お支払い待ち」か「期限切れ」を指定してください。'),
    'awaiting',
  ),
  ...paging,
});
