import * as v from 'valibot';
import { validationError } from '../../http/errors.ts';
import { paging, rules } from '../../http/validate.ts';
import { parseJapanTime } from '../../lib/japan-time.ts';
import { printable } from '../../lib/printable-text.ts';

const PRICE_MIN = 50;
const PRICE_MAX = 9_999_999;
const PRICE_MESSAGE = `価格は${PRICE_MIN.toLocaleString('ja-JP')}〜${PRICE_MAX.toLocaleString('ja-JP')}円の整数で入力してください。`;

const CAPACITY_MAX = 100_000;
const CAPACITY_MESSAGE = `定員は1〜${CAPACITY_MAX.toLocaleString('ja-JP')}の整数で入力してください（空欄は定員なし）。`;

/** Typed in Japan time; empty: none; omitted on an edit: unchanged. */
const japanTimeField = (label: string) =>
  v.optional(
    v.pipe(
      v.string(`${label}は文字列で入力してください。`),
      v.trim(),
      v.check(
        (text) => text === '' || parseJapanTime(text) !== null,
        `${label}は「2026-12-01T00:00」（日本時間）の形式で、実在する日時を入力してください。`,
      ),
      v.transform((text) => (text === '' ? null : (parseJapanTime(text) as Date))),
    ),
  );

/** The text fields of the licence multipart form (values arrive as strings). */
export const LicenseFields = v.object({
  name: v.pipe(
    v.string('ライセンス名を入力してください。'),
    printable('ライセンス名'),
    rules.requiredString('ライセンス名', 100),
  ),
  description: v.optional(
    v.pipe(
      v.string('説明は文字列で入力してください。'),
      printable('説明', { multiline: true }),
      v.trim(),
      v.maxLength(5000, '説明は5,000文字以内で入力してください。'),
    ),
    '',
  ),
  price: v.pipe(
    v.string('価格を入力してください。'),
    // 「12,000」「１２０００」「¥12,000」「12000円」 are all 12000.
    v.transform((text) => text.normalize('NFKC').replace(/[¥,円\s]/g, '')),
    v.minLength(1, '価格を入力してください。'),
    v.regex(/^\d{1,9}$/, PRICE_MESSAGE),
    v.transform(Number),
    v.minValue(PRICE_MIN, PRICE_MESSAGE),
    v.maxValue(PRICE_MAX, PRICE_MESSAGE),
  ),
  capacity: v.optional(
    v.pipe(
      v.string(CAPACITY_MESSAGE),
      v.transform((text) => text.normalize('NFKC').replace(/[,\s席名人]/g, '')),
      v.check(
        (text) => text === '' || (/^\d{1,6}$/.test(text) && Number(text) >= 1 && Number(text) <= CAPACITY_MAX),
        CAPACITY_MESSAGE,
      ),
      v.transform((text) => (text === '' ? null : Number(text))),
    ),
  ),
  sale_starts_at: japanTimeField('販売開始日時'),
  sale_ends_at: japanTimeField('販売終了日時'),
  /** 公開 ("true") or 非公開 ("false"); omitted: on sale when created, unchanged when edited. */
  published: v.optional(
    v.pipe(
      v.picklist(['true', 'false', '1', '0', 'on', 'off'], '公開・非公開を選択してください。'),
      v.transform((value) => value === 'true' || value === '1' || value === 'on'),
    ),
  ),
});
export type LicenseFieldsData = v.InferOutput<typeof LicenseFields>;

export const UpdatedAtField = v.object({
  updated_at: v.pipe(
    v.string('更新日時がありません。画面を読み込み直してください。'),
    v.isoTimestamp('更新日時の形式が正しくありません。'),
  ),
});

/** `position`: the administrators' display order, the catalogue's (the default). */
const SORTS = ['position', 'id', '-id', 'name', '-name', 'price', '-price', 'updated_at', '-updated_at'] as const;
export const ListQuery = v.object({
  ...paging,
  sort: v.optional(v.picklist(SORTS, '並び順が正しくありません。'), 'position'),
});
export type ListQueryData = v.InferOutput<typeof ListQuery>;

/** One place in the full picture order: a stored picture kept by its file name, or the n-th new file. */
export type PictureSlot = { kind: 'stored'; fileName: string } | { kind: 'new'; index: number };

const ORDER_ENTRY = /^(?:stored:(.+)|new:(0|[1-9]\d?))$/;
const ORDER_MISMATCH = '画像の並び順が送信された画像と一致しません。画面を読み込み直してください。';

/**
 * The optional `order[0..n]` of the licence multipart: every picture of the result, in display order,
 * as `stored:<filename>` (one of `filenames[]`) or `new:<i>` (the i-th of `file[]`, from 0). Each kept and
 * each new picture appears exactly once. Without it the order is the kept pictures, then the new ones.
 */
export function pictureOrder(order: string[] | undefined, keep: string[], newCount: number): PictureSlot[] {
  if (order === undefined) {
    return [
      ...keep.map((fileName) => ({ kind: 'stored' as const, fileName })),
      ...Array.from({ length: newCount }, (_, index) => ({ kind: 'new' as const, index })),
    ];
  }
  const slots: PictureSlot[] = [];
  const errors: string[] = [];
  for (const [position, entry] of order.entries()) {
    const match = ORDER_ENTRY.exec(entry);
    if (!match) errors.push(`画像の並び順の${position + 1}番目は「stored:ファイル名」か「new:番号」で指定してください。`);
    else if (match[1] !== undefined) slots.push({ kind: 'stored', fileName: match[1] });
    else slots.push({ kind: 'new', index: Number(match[2]) });
  }
  if (!errors.length) {
    const stored = slots.flatMap((s) => (s.kind === 'stored' ? [s.fileName] : []));
    const added = slots.flatMap((s) => (s.kind === 'new' ? [s.index] : []));
    const sameSet = <T>(given: T[], expected: T[]) =>
      given.length === expected.length && new Set(given).size === given.length && expected.every((x) => given.includes(x));
    const sent = Array.from({ length: newCount }, (_, i) => i);
    if (!sameSet(stored, keep)) errors.push(`${ORDER_MISMATCH}（保存済みの画像）`);
    if (!sameSet(added, sent)) errors.push(`${ORDER_MISMATCH}（新しい画像）`);
  }
  if (errors.length) throw validationError({ order: errors });
  return slots;
}

const LICENSE_ID = v.pipe(
  v.number('ライセンスの指定が正しくありません。'),
  v.integer('ライセンスの指定が正しくありません。'),
  v.minValue(1, 'ライセンスの指定が正しくありません。'),
  v.maxValue(999_999_999, 'ライセンスの指定が正しくありません。'),
);

/** PUT /api/licenses/order: licence ids in their new display order (each once). */
export const OrderInput = v.object({
  ids: v.pipe(
    v.array(LICENSE_ID, '並び順はライセンスIDの配列で指定してください。'),
    v.minLength(1, '並べ替えるライセンスを指定してください。'),
    v.maxLength(1000, '一度に並べ替えられるのは1,000件までです。'),
  ),
});

/** POST /api/licenses/{id}/move: one place up (towards the top of the catalogue) or down. */
export const MoveInput = v.object({
  direction: v.picklist(['up', 'down'], '移動の向きは「up」か「down」で指定してください。'),
});

/** PUT /api/licenses/{id}/published: the list's 公開/非公開 switch. */
export const PublishedInput = v.object({
  published: v.boolean('公開・非公開を選択してください。'),
});
