import * as v from 'valibot';
import { paging, rules } from '../../http/validate.ts';
import { printable } from '../../lib/printable-text.ts';
import { ADDRESSEE_KINDS, HONORIFICS, type Honorific } from './entities/receipt.entity.ts';
import { PAYMENT_METHODS, SALE_STATUSES, SaleStatus } from './entities/sale.entity.ts';

const positiveInt = (message: string) =>
  v.pipe(
    v.union([v.number(message), v.pipe(v.string(message), v.regex(/^\d{1,9}$/, message), v.transform(Number))], message),
    v.integer(message),
    v.minValue(1, message),
  );
const date = rules.date();

const SalesQuery = v.object({
  license_id: v.optional(
    v.union([v.literal(''), positiveInt('ライセンスが正しくありません。')], 'ライセンスが正しくありません。'),
  ),
  status: v.optional(
    v.union(
      [
        v.literal(''),
        // 返金済み: the refunded sales (a status lists the sales in that state that are not refunded).
        v.literal('refunded'),
        v.pipe(
          v.union([v.number(), v.string()], '状態が正しくありません。'),
          v.transform(String),
          v.picklist(
            SALE_STATUSES.map((status) => String(status)),
            '状態が正しくありません。',
          ),
          v.transform((status) => Number(status) as SaleStatus),
        ),
      ],
      '状態が正しくありません。',
    ),
  ),
  q: v.optional(
    v.pipe(v.string('検索語が正しくありません。'), v.trim(), v.maxLength(254, '検索語は254文字以内で入力してください。')),
  ),
  paid_from: v.optional(v.union([v.literal(''), date], '日付が正しくありません。')),
  paid_to: v.optional(v.union([v.literal(''), date], '日付が正しくありません。')),
  audit_id: v.optional(
    v.union(
      [v.literal(''), v.pipe(v.string(), v.trim(), v.toLowerCase(), v.uuid('操作履歴の指定が正しくありません。'))],
      '操作履歴の指定が正しくありません。',
    ),
  ),
  payment_method: v.optional(
    v.picklist(['', ...PAYMENT_METHODS], 'お支払い方法は card、konbini、bank_transfer のいずれかを指定してください。'),
  ),
  ...paging,
});

/** Refused on `paid_to` (422), not answered with 0 rows. */
const DATES_REVERSED = '購入日（まで）は購入日（から）と同じか、それより後の日付を指定してください。';
const datesInOrder = (input: { paid_from?: string; paid_to?: string }) =>
  !input.paid_from || !input.paid_to || input.paid_from <= input.paid_to;

type DateRange = { paid_from?: string; paid_to?: string };

const datesCheck = <T extends DateRange>() =>
  v.rawCheck<T>(({ dataset, addIssue }) => {
    if (!dataset.typed || datesInOrder(dataset.value)) return;
    addIssue({
      message: DATES_REVERSED,
      path: [{ type: 'object', origin: 'value', input: dataset.value, key: 'paid_to', value: dataset.value.paid_to }],
    });
  });

const withDatesInOrder = <T extends DateRange, S extends v.GenericSchema<unknown, T>>(schema: S) =>
  v.pipe(schema, datesCheck<v.InferOutput<S>>());

export const SalesListQuery = withDatesInOrder(SalesQuery);

export const PageQuery = v.object({ page: SalesQuery.entries.page, per_page: SalesQuery.entries.per_page });

const expectedCount = v.optional(
  v.pipe(v.number('件数が正しくありません。'), v.integer('件数が正しくありません。'), v.minValue(0, '件数が正しくありません。')),
);

const saleIdList = v.pipe(
  v.array(positiveInt('売上の指定が正しくありません。'), '売上の指定が正しくありません。'),
  v.minLength(1, '売上を選択してください。'),
  v.maxLength(1000, '一度に更新できるのは1,000件までです。'),
);

const searchEntries = {
  q: SalesQuery.entries.q,
  paid_from: SalesQuery.entries.paid_from,
  paid_to: SalesQuery.entries.paid_to,
};

export const StatusUpdateInput = v.pipe(
  v.object({
    status: v.picklist(
      [SaleStatus.InProgress, SaleStatus.Registered],
      `状態は ${SaleStatus.InProgress}（処理中）か ${SaleStatus.Registered}（登録済み）を指定してください。`,
    ),
    licenseId: positiveInt('ライセンスを指定してください。'),
    saleIds: v.optional(saleIdList),
    ...searchEntries,
    expected_count: expectedCount,
  }),
  v.forward(
    v.check(
      (input) => !input.saleIds || !(input.q || input.paid_from || input.paid_to),
      '選択した売上と検索条件は同時に指定できません。',
    ),
    ['saleIds'],
  ),
  datesCheck(),
);

export const RevertInput = v.object({
  saleIds: saleIdList,
  reason: v.pipe(
    v.string('差し戻しの理由を入力してください。'),
    printable('差し戻しの理由', { multiline: true }),
    v.trim(),
    v.minLength(1, '差し戻しの理由を入力してください。'),
    v.maxLength(200, '差し戻しの理由は200文字以内で入力してください。'),
  ),
});

export const CountsQuery = withDatesInOrder(
  v.object({
    license_id: SalesQuery.entries.license_id,
    ...searchEntries,
    audit_id: SalesQuery.entries.audit_id,
  }),
);

type FilterFields = Partial<
  Pick<v.InferOutput<typeof SalesQuery>, 'license_id' | 'status' | 'q' | 'paid_from' | 'paid_to' | 'audit_id' | 'payment_method'>
>;

export const toFilter = (query: FilterFields) => ({
  licenseId: typeof query.license_id === 'number' ? query.license_id : undefined,
  status: typeof query.status === 'number' ? query.status : undefined,
  refunded: query.status === 'refunded' || undefined,
  q: query.q || undefined,
  paidFrom: query.paid_from || undefined,
  paidTo: query.paid_to || undefined,
  auditId: query.audit_id || undefined,
  paymentMethod: query.payment_method || undefined,
});

const flag = (message: string) =>
  v.optional(
    v.union(
      [
        v.boolean(),
        v.pipe(
          v.picklist(['true', 'false', '1', '0'], message),
          v.transform((s) => s === 'true' || s === '1'),
        ),
      ],
      message,
    ),
    false,
  );

const filterEntries = {
  license_id: SalesQuery.entries.license_id,
  status: SalesQuery.entries.status,
  q: SalesQuery.entries.q,
  paid_from: SalesQuery.entries.paid_from,
  paid_to: SalesQuery.entries.paid_to,
};

export const ExportInput = withDatesInOrder(
  v.object({
    ...filterEntries,
    encoding: v.optional(v.picklist(['utf-8', 'shift_jis'], '文字コードは utf-8 か shift_jis を指定してください。'), 'utf-8'),
    batch: flag('一括処理の指定が正しくありません。'),
    replace_unmappable: flag('置き換えの指定が正しくありません。'),
    expected_count: expectedCount,
  }),
);

export const PreflightQuery = withDatesInOrder(v.object({ ...filterEntries, batch: flag('一括処理の指定が正しくありません。') }));

const REFUND_AMOUNT = '返金額は1円以上の整数（円）で入力してください。';

/**
 * POST /api/sales/{id}/refund: how much (yen; absent: all that remains), why (1..200 characters,
 * audited) and, for an exported sale, the confirmation.
 */
export const RefundInput = v.object({
  amount: v.optional(
    v.pipe(
      v.number(REFUND_AMOUNT),
      v.integer(REFUND_AMOUNT),
      v.minValue(1, REFUND_AMOUNT),
      v.maxValue(99_999_999, REFUND_AMOUNT),
    ),
  ),
  reason: v.pipe(
    v.string('返金の理由を入力してください。'),
    printable('返金の理由', { multiline: true }),
    v.trim(),
    v.minLength(1, '返金の理由を入力してください。'),
    v.check((text: string) => [...text].length <= 200, '返金の理由は200文字以内で入力してください。'),
  ),
  confirm_exported: v.optional(v.boolean('研修管理システムへの連絡の確認は true か false で指定してください。'), false),
});

/** A typed 宛名 that already ends in its honorific (「〇〇病院 総務課 御中」): text and honorific apart. */
const WITH_HONORIFIC = /^(.*?)[\s\u3000]*(様|御中)$/su;
const ENDS_IN_TONO = /殿$/u;

const printedText = (label: string, max: number) =>
  v.pipe(
    v.string(`${label}は文字列で入力してください。`),
    printable(label),
    v.trim(),
    v.minLength(1, `${label}を入力してください。`),
    v.check((text: string) => [...text].length <= max, `${label}は${max}文字以内で入力してください。`),
  );

/**
 * PUT /api/sales/{id}/receipt-addressee: `addressee` is `name` (氏名 様), `organisation` (所属名 御中)
 * or `custom` (the typed `addressee_text`, 1..60 characters, with `honorific` 様 or 御中); `proviso`
 * (但し書き, 1..40 characters) may go with any of them, default 「ライセンス代として」.
 */
export const AddresseeInput = v.pipe(
  v.object({
    addressee: v.picklist(ADDRESSEE_KINDS, '宛名は「氏名」「所属」「宛名を入力する」のいずれかを選んでください。'),
    addressee_text: v.optional(
      v.nullable(
        v.pipe(
          printedText('宛名', 60),
          v.check(
            (text: string) => !ENDS_IN_TONO.test(text),
            '宛名に「殿」は付けずに入力し、敬称は「様」か「御中」から選んでください。',
          ),
        ),
      ),
    ),
    honorific: v.optional(v.nullable(v.picklist(HONORIFICS, '敬称は「様」か「御中」から選んでください。'))),
    proviso: v.optional(v.nullable(printedText('但し書き', 40))),
  }),
  v.forward(
    v.partialCheck(
      [['addressee'], ['addressee_text']],
      (input) => input.addressee !== 'custom' || Boolean(input.addressee_text),
      '宛名を入力してください。',
    ),
    ['addressee_text'],
  ),
  v.forward(
    v.partialCheck(
      [['addressee'], ['addressee_text'], ['honorific']],
      (input) => {
        const typed = input.addressee === 'custom' && input.addressee_text ? WITH_HONORIFIC.exec(input.addressee_text) : null;
        return !typed || (Boolean(typed[1]) && (!input.honorific || input.honorific === typed[2]));
      },
      '宛名の末尾の敬称と、選んだ敬称が異なります。宛名は敬称を付けずに入力してください。',
    ),
    ['addressee_text'],
  ),
  // An API client may type the honorific into the 宛名 (「〇〇病院 総務課 御中」) or leave it out: the
  // typed one is used, else 御中 — a typed 宛名 is most often an office (SPEC §10 names no honorific).
  v.transform((input) => {
    if (input.addressee !== 'custom' || !input.addressee_text) return input;
    const typed = WITH_HONORIFIC.exec(input.addressee_text);
    if (typed) return { ...input, addressee_text: typed[1] as string, honorific: typed[2] as Honorific };
    return { ...input, honorific: input.honorific ?? ('御中' as Honorific) };
  }),
);
export type AddresseeChoice = v.InferOutput<typeof AddresseeInput>;

/** GET /api/licenses/{id}/quotation: the typed 宛名 (1..60 characters, no 殿) and 様 or 御中. */
export const QuotationQuery = v.object({
  addressee: v.optional(
    v.pipe(
      printedText('宛名', 60),
      v.check(
        (text: string) => !ENDS_IN_TONO.test(text) && !WITH_HONORIFIC.test(text),
        '宛名は敬称を付けずに入力し、敬称は「様」か「御中」から選んでください。',
      ),
    ),
    '',
  ),
  honorific: v.picklist(HONORIFICS, '敬称は「様」か「御中」から選んでください。'),
});

/** POST /api/sales/{id}/receipt-copy/mail */
export const ReceiptCopyMailInput = v.object({ email: rules.email('送付先のメールアドレス') });
