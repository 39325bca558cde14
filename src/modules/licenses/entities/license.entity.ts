import { defineEntity, p } from '@mikro-orm/core';
import { createdAt } from '../../../db/columns.ts';

/** A training licence on sale. `price` is whole yen, tax included. */
const LicenseSchema = defineEntity({
  name: 'License',
  tableName: 'licenses',
  indexes: [{ name: 'licenses_sort_order_index', properties: ['sortOrder', 'id'] }],
  properties: {
    id: p.integer().primary().autoincrement(),
    name: p.string().length(100),
    description: p.text().default(''),
    price: p.integer(),
    // 公開 (on sale, in the catalogue) or 非公開 (hidden from members; existing sales untouched).
    published: p.boolean().default(true),
    // The administrators' display order (smallest first, the catalogue's order); a new licence comes last.
    sortOrder: p.integer().fieldName('sort_order').defaultRaw("nextval('licenses_sort_order_seq')"),
    // Set when a purchase of it first started: from then on it can only be hidden, never deleted.
    checkoutStartedAt: p.datetime().fieldName('checkout_started_at').nullable(),
    capacity: p.integer().nullable(),
    saleStartsAt: p.datetime().fieldName('sale_starts_at').nullable(),
    saleEndsAt: p.datetime().fieldName('sale_ends_at').nullable(),
    createdAt: createdAt(),
    updatedAt: p
      .datetime()
      .fieldName('updated_at')
      .onCreate(() => new Date()),
    pictures: () => p.oneToMany(LicensePicture).mappedBy('license').orderBy({ position: 'asc' }),
  },
});
export class License extends LicenseSchema.class {}
LicenseSchema.setClass(License);

/** A stored, re-encoded picture of a licence, in display order. Files live under DATA_DIR/uploads. */
const LicensePictureSchema = defineEntity({
  name: 'LicensePicture',
  tableName: 'license_pictures',
  properties: {
    id: p.uuid().primary(),
    license: () => p.manyToOne(License).fieldName('license_id').deleteRule('cascade').index('license_pictures_license_id_index'),
    position: p.smallint(),
    fileName: p.string().length(64).fieldName('file_name').unique('license_pictures_file_name_unique'),
    thumbnailName: p.string().length(64).fieldName('thumbnail_name'),
    contentType: p.string().length(32).fieldName('content_type'),
    width: p.integer(),
    height: p.integer(),
    byteSize: p.integer().fieldName('byte_size'),
    originalName: p.string().length(255).fieldName('original_name').nullable(),
    createdAt: createdAt(),
  },
});
export class LicensePicture extends LicensePictureSchema.class {}
LicensePictureSchema.setClass(LicensePicture);
