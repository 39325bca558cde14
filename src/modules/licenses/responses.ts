import * as v from 'valibot';
import { inputJsonSchema, MessageAnswer, operation, pageEntries, pathIds, timestamp } from '../../http/openapi.ts';
import { LicenseFields, ListQuery, MoveInput, OrderInput, PublishedInput, UpdatedAtField } from './schemas.ts';

/** A licence as the API shows it (licenseDto), with the seed's `picture_directory` and `pictures_pathes`. */
const LicenseAnswer = v.pipe(
  v.object({
    id: v.number(),
    name: v.string(),
    description: v.string(),
    price: v.number(),
    published: v.boolean(),
    sort_order: v.number(),
    capacity: v.nullable(v.number()),
    sale_starts_at: v.nullable(timestamp()),
    sale_ends_at: v.nullable(timestamp()),
    sale_state: v.optional(v.picklist(['on_sale', 'before_sale', 'sale_ended', 'sold_out'])),
    remaining_seats: v.optional(v.nullable(v.number())),
    created_at: timestamp(),
    updated_at: timestamp(),
    picture_directory: v.string(),
    pictures_pathes: v.array(v.string()),
    pictures: v.array(
      v.object({
        filename: v.string(),
        url: v.string(),
        thumbnail_url: v.string(),
        width: v.number(),
        height: v.number(),
        original_name: v.nullable(v.string()),
      }),
    ),
    /** Administrators only: no checkout was ever started for it, so it may be deleted. */
    deletable: v.optional(v.boolean()),
  }),
  v.metadata({ ref: 'License' }),
);

const LicenseFormAnswer = v.object({
  license: v.object({
    name: v.string(),
    description: v.string(),
    price: v.number(),
    published: v.optional(v.boolean()),
    capacity: v.optional(v.nullable(v.number())),
    sale_starts_at: v.optional(v.nullable(timestamp())),
    sale_ends_at: v.optional(v.nullable(timestamp())),
  }),
});
const IdsAnswer = v.object({ ids: v.array(v.number()), message: v.string() });

/** The licence form (multipart): its fields, the stored pictures to keep, the new ones and their order. */
function licenseForm(edit: boolean) {
  const fields = inputJsonSchema(edit ? v.object({ ...LicenseFields.entries, ...UpdatedAtField.entries }) : LicenseFields);
  return {
    ...fields,
    type: 'object',
    patternProperties: {
      '^filenames\\[\\d+\\]$': { type: 'string', description: '残す保存済み画像のファイル名（表示順）' },
      '^file\\[\\d+\\]$': {
        type: 'string',
        contentMediaType: 'image/*',
        description: '新しい画像（JPEG・PNG・WebP、5MB まで、10枚まで）',
      },
      '^order\\[\\d+\\]$': { type: 'string', description: '画像の並び順（stored:ファイル名 / new:番号）' },
    },
  };
}

function licenseJson(edit: boolean) {
  const fields = inputJsonSchema(edit ? v.object({ ...LicenseFields.entries, ...UpdatedAtField.entries }) : LicenseFields);
  return {
    ...fields,
    type: 'object',
    properties: {
      ...fields.properties,
      filenames: { type: 'array', items: { type: 'string' }, description: '残す保存済み画像のファイル名（表示順）' },
      order: { type: 'array', items: { type: 'string' }, description: '画像の並び順（stored:ファイル名）' },
    },
  };
}

const TAGS = ['ライセンス'];
const license = { id: pathIds.number };

export const licenseDocs = {
  list: operation('get', {
    summary: 'ライセンスの一覧',
    tags: TAGS,
    access: 'member',
    query: ListQuery,
    answers: { 200: v.object({ licenses: v.array(LicenseAnswer), ...pageEntries }) },
  }),
  validateCreate: operation('post', {
    summary: 'ライセンス登録の入力を確認する',
    tags: TAGS,
    access: 'admin',
    permission: 'licenses:update',
    multipart: licenseForm(false),
    multipartJson: licenseJson(false),
    answers: { 200: LicenseFormAnswer },
  }),
  create: operation('post', {
    summary: 'ライセンスを登録する',
    tags: TAGS,
    access: 'admin',
    permission: 'licenses:update',
    multipart: licenseForm(false),
    multipartJson: licenseJson(false),
    answers: { 201: v.object({ license: LicenseAnswer, message: v.string() }) },
  }),
  order: operation('put', {
    summary: 'ライセンスの表示順を変える',
    tags: TAGS,
    access: 'admin',
    permission: 'licenses:update',
    body: OrderInput,
    answers: { 200: IdsAnswer },
    errors: [409],
  }),
  move: operation('post', {
    summary: 'ライセンスを1つ上げる・下げる',
    tags: TAGS,
    access: 'admin',
    permission: 'licenses:update',
    path: license,
    body: MoveInput,
    answers: { 200: IdsAnswer },
  }),
  published: operation('put', {
    summary: 'ライセンスを公開・非公開にする',
    tags: TAGS,
    access: 'admin',
    permission: 'licenses:update',
    path: license,
    body: PublishedInput,
    answers: { 200: v.object({ license: LicenseAnswer, message: v.string() }) },
  }),
  show: operation('get', {
    summary: 'ライセンスの詳細',
    tags: TAGS,
    access: 'member',
    path: license,
    answers: { 200: v.object({ license: LicenseAnswer }) },
  }),
  remove: operation('delete', {
    summary: 'ライセンスを削除する（販売前のみ）',
    tags: TAGS,
    access: 'admin',
    permission: 'licenses:update',
    path: license,
    answers: { 200: MessageAnswer },
    errors: [409],
  }),
  validateEdit: operation('post', {
    summary: 'ライセンス編集の入力を確認する',
    tags: TAGS,
    access: 'admin',
    permission: 'licenses:update',
    path: license,
    multipart: licenseForm(true),
    multipartJson: licenseJson(true),
    answers: { 200: LicenseFormAnswer },
    errors: [409],
  }),
  edit: operation('post', {
    summary: 'ライセンスを更新する',
    tags: TAGS,
    access: 'admin',
    permission: 'licenses:update',
    path: license,
    multipart: licenseForm(true),
    multipartJson: licenseJson(true),
    answers: { 200: v.object({ license: LicenseAnswer, message: v.string() }) },
    errors: [409],
  }),
};
