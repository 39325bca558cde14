import { randomUUID } from 'node:crypto';
import { LockMode } from '@mikro-orm/core';
import { jsonArrayFrom } from 'kysely/helpers/postgres';
import { type ChangeFeed, cached, tableCache } from '../../db/changes.ts';
import { countAll, db as kysely, now } from '../../db/kysely.ts';
import type { Em, Orm } from '../../db/orm.ts';
import { recordEvent, transact } from '../../events/outbox.ts';
import { AppError, validationError } from '../../http/errors.ts';
import type { UploadedFile } from '../../http/multipart.ts';
import { collectErrors } from '../../http/validate.ts';
import type { FileStore } from '../../storage/file-store.ts';
import type { Actor } from '../audit/index.ts';
import { recordAudit } from '../audit/index.ts';
import { License, LicensePicture } from './entities/license.entity.ts';
import {
  ImageRejected,
  MAX_PICTURES,
  PICTURE_DIRECTORY,
  type ProcessedPicture,
  processPicture,
  removePictures,
  type StoredPicture,
  storePictures,
} from './images.ts';
import { type LicenseFieldsData, type ListQueryData, type PictureSlot, pictureOrder } from './schemas.ts';

export const LICENSE_NOT_FOUND = 'エラー: ライセンスが見つかりませんでした。';
export const STALE_EDIT =
  '他の管理者がこのライセンスを先に更新しました。最新の内容を読み込み直してから、もう一度変更してください。';

type PictureRow = Pick<LicensePicture, 'fileName' | 'thumbnailName' | 'width' | 'height' | 'originalName'>;

/** The licence at the API edge, with the seed's `picture_directory` and `pictures_pathes`. */
export function licenseDto(
  license: Pick<License, 'id' | 'name' | 'description' | 'price' | 'published' | 'createdAt' | 'updatedAt'>,
  pictures: PictureRow[],
) {
  return {
    id: license.id,
    name: license.name,
    description: license.description,
    price: license.price,
    published: license.published,
    created_at: license.createdAt.toISOString(),
    updated_at: license.updatedAt.toISOString(),
    picture_directory: PICTURE_DIRECTORY,
    pictures_pathes: pictures.map((p) => `${PICTURE_DIRECTORY}/${p.fileName}`),
    pictures: pictures.map((p) => ({
      filename: p.fileName,
      url: `${PICTURE_DIRECTORY}/${p.fileName}`,
      thumbnail_url: `${PICTURE_DIRECTORY}/${p.thumbnailName}`,
      width: p.width,
      height: p.height,
      original_name: p.originalName,
    })),
  };
}
export type LicenseDto = ReturnType<typeof licenseDto>;

const SORT_COLUMNS = { id: 'id', name: 'name', price: 'price', updated_at: 'updated_at' } as const;
const sortColumn = (key: string) => (Object.hasOwn(SORT_COLUMNS, key) ? SORT_COLUMNS[key as keyof typeof SORT_COLUMNS] : 'id');

const cataloguePages = (changes: ChangeFeed | undefined) =>
  tableCache<Awaited<ReturnType<typeof readLicenses>>>(changes, 'catalogue pages', ['licenses', 'license_pictures'], {
    max: 500,
    ttlMs: 10 * 60_000,
  });

/**
 * The catalogue (members: 公開 licences only) or the administrators' list (all), since every
 * signed-in member's first screen asks for it: kept in memory until the licences or their pictures
 * change (change notices, docs/decisions/0021).
 */
export function listLicenses(
  orm: Orm,
  query: ListQueryData,
  options: { includeHidden: boolean } = { includeHidden: false },
  changes?: ChangeFeed,
) {
  return cached(cataloguePages(changes), JSON.stringify([query, options.includeHidden]), () => readLicenses(orm, query, options));
}

/** One statement for the page, its total and every picture of its licences, read as rows (no entities to build). */
async function readLicenses(orm: Orm, query: ListQueryData, options: { includeHidden: boolean }) {
  const em = orm.em.fork() as Em;
  const desc = query.sort.startsWith('-') ? 'desc' : 'asc';
  const column = sortColumn(query.sort.replace(/^-/, ''));
  const offset = (query.page - 1) * query.per_page;
  const db = kysely(em);
  const rows = await db
    .selectFrom((eb) =>
      eb
        .selectFrom('licenses as l')
        .select((l) => [
          'l.id',
          'l.name',
          'l.description',
          'l.price',
          'l.published',
          'l.created_at',
          'l.updated_at',
          l.fn.countAll().over().as('total'),
        ])
        .$if(!options.includeHidden, (q) => q.where('l.published', '=', true))
        .orderBy(`l.${column}`, desc)
        // The id breaks ties; when the sort is the id itself it must not override its direction.
        .$if(column !== 'id', (q) => q.orderBy('l.id', 'asc'))
        .limit(query.per_page)
        .offset(offset)
        .as('page'),
    )
    .selectAll('page')
    .select((eb) =>
      jsonArrayFrom(
        eb
          .selectFrom('license_pictures as p')
          .select(['p.file_name', 'p.thumbnail_name', 'p.width', 'p.height', 'p.original_name'])
          .whereRef('p.license_id', '=', 'page.id')
          .orderBy('p.position'),
      ).as('pictures'),
    )
    .orderBy(`page.${column}`, desc)
    .$if(column !== 'id', (q) => q.orderBy('page.id', 'asc'))
    .execute();
  let total = Number(rows[0]?.total ?? 0);
  if (rows.length === 0 && offset > 0) {
    const count = await db
      .selectFrom('licenses')
      .select((eb) => countAll(eb).as('total'))
      .$if(!options.includeHidden, (q) => q.where('published', '=', true))
      .executeTakeFirst();
    total = count?.total ?? 0;
  }
  return {
    licenses: rows.map((row) =>
      licenseDto(
        {
          id: row.id,
          name: row.name,
          description: row.description,
          price: row.price,
          published: row.published,
          createdAt: new Date(row.created_at),
          updatedAt: new Date(row.updated_at),
        },
        row.pictures.map((p) => ({
          fileName: p.file_name,
          thumbnailName: p.thumbnail_name,
          width: p.width,
          height: p.height,
          originalName: p.original_name,
        })),
      ),
    ),
    total,
    page: query.page,
    per_page: query.per_page,
  };
}

export async function getLicense(
  orm: Orm,
  id: number,
  options: { includeHidden: boolean } = { includeHidden: true },
): Promise<LicenseDto> {
  const license = await orm.em.fork().findOne(License, { id }, { populate: ['pictures'] });
  if (!license || (!license.published && !options.includeHidden)) throw new AppError('not_found', LICENSE_NOT_FOUND);
  return licenseDto(license, license.pictures.getItems());
}

/** Decodes and re-encodes every new picture; an unusable one answers 422 naming it. */
export async function processUploads(files: UploadedFile[]): Promise<ProcessedPicture[]> {
  const processed: ProcessedPicture[] = [];
  const errors: Record<string, string[]> = {};
  for (const [index, file] of files.entries()) {
    try {
      processed.push(await processPicture(file.data, file.filename));
    } catch (error) {
      if (!(error instanceof ImageRejected)) throw error;
      errors[`file.${index}`] = [`${index + 1}枚目の画像（${file.filename || '名前なし'}）: ${error.message}`];
    }
  }
  if (Object.keys(errors).length) throw validationError(errors);
  return processed;
}

const isSameInstant = (stored: Date, given: string) => stored.getTime() === new Date(given).getTime();

function checkCount(count: number) {
  if (count > MAX_PICTURES) throw validationError({ file: [`画像は${MAX_PICTURES}枚までです。`] });
}

const snapshot = (license: License, pictures: { fileName: string }[]) => ({
  name: license.name,
  description: license.description,
  price: license.price,
  published: license.published,
  pictures: pictures.map((p) => p.fileName),
});

/**
 * Validates a create (`id` null: nothing stored can be kept) or an edit — kept pictures, the picture
 * order, new pictures — without storing anything; every field's errors are reported together.
 */
export async function validateLicense(
  orm: Orm,
  id: number | null,
  pictures: { keep: string[]; order?: string[]; updatedAt?: string },
  files: UploadedFile[],
): Promise<void> {
  const { keep, order, updatedAt } = pictures;
  let license: License | null = null;
  if (id !== null) {
    license = await orm.em.fork().findOne(License, { id }, { populate: ['pictures'] });
    if (!license) throw new AppError('not_found', LICENSE_NOT_FOUND);
    if (updatedAt && !isSameInstant(license.updatedAt, updatedAt)) throw new AppError('conflict', STALE_EDIT);
  }
  await collectErrors(
    () => license && checkKept(license, keep),
    () => pictureOrder(order, keep, files.length),
    () => checkCount(keep.length + files.length),
    () => processUploads(files),
  );
}

function checkKept(license: License, keep: string[]) {
  const own = new Set(license.pictures.getItems().map((p) => p.fileName));
  if (keep.some((name) => !own.has(name)) || new Set(keep).size !== keep.length) {
    throw validationError({ filenames: ['保存済みの画像の指定が正しくありません。画面を読み込み直してください。'] });
  }
}

/** The new pictures in the administrator's order (`order` may only name new ones on a create). */
const newInOrder = <T>(slots: PictureSlot[], stored: T[]): T[] =>
  slots.flatMap((slot) => (slot.kind === 'new' ? [stored[slot.index] as T] : []));

/**
 * Creates a licence with its pictures, in the order given (else the order of `file[]`). Files are
 * written first and removed again if the transaction fails.
 */
export async function createLicense(
  orm: Orm,
  store: FileStore,
  actor: Actor,
  fields: LicenseFieldsData,
  files: UploadedFile[],
  order?: string[],
) {
  checkCount(files.length);
  const slots = pictureOrder(order, [], files.length);
  const stored = newInOrder(slots, await storePictures(store, await processUploads(files)));
  try {
    const license = await transact(orm.em as Em, async (tx) => {
      const now = new Date();
      const license = tx.create(License, { ...fields, published: fields.published ?? true, createdAt: now, updatedAt: now });
      for (const [position, picture] of stored.entries()) {
        tx.create(LicensePicture, { id: randomUUID(), license, position, ...picture, createdAt: now });
      }
      await tx.flush();
      recordAudit(tx, actor, {
        action: 'license.create',
        targetType: 'license',
        targetId: license.id,
        after: snapshot(license, stored),
      });
      return license;
    });
    return getLicense(orm, license.id);
  } catch (error) {
    await removePictures(store, stored);
    throw error;
  }
}

/**
 * Saves an edit over the version the form was loaded from (`updated_at`), else 409. Pictures: exactly
 * in `order` when given, else the kept ones in the order given, then the new ones. Removed files are
 * deleted after the commit.
 */
export async function updateLicense(
  orm: Orm,
  store: FileStore,
  actor: Actor,
  id: number,
  input: { fields: LicenseFieldsData; updatedAt: string; keep: string[]; order?: string[] },
  files: UploadedFile[],
) {
  checkCount(input.keep.length + files.length);
  const slots = pictureOrder(input.order, input.keep, files.length);
  const processed = await processUploads(files);
  const stored = await storePictures(store, processed);
  let removed: LicensePicture[] = [];
  try {
    await transact(orm.em as Em, async (tx) => {
      const license = await tx.findOne(License, { id }, { populate: ['pictures'], lockMode: LockMode.PESSIMISTIC_WRITE });
      if (!license) throw new AppError('not_found', LICENSE_NOT_FOUND);
      if (!isSameInstant(license.updatedAt, input.updatedAt)) throw new AppError('conflict', STALE_EDIT);
      checkKept(license, input.keep);
      const current = license.pictures.getItems();
      const before = snapshot(license, current);
      removed = current.filter((p) => !input.keep.includes(p.fileName));
      for (const picture of removed) tx.remove(picture);
      const kept = new Map(current.map((p) => [p.fileName, p]));
      const now = new Date();
      const arranged: { fileName: string }[] = [];
      for (const [position, slot] of slots.entries()) {
        if (slot.kind === 'stored') {
          const picture = kept.get(slot.fileName) as LicensePicture;
          picture.position = position;
          arranged.push(picture);
        } else {
          const picture = stored[slot.index] as StoredPicture;
          tx.create(LicensePicture, { id: randomUUID(), license, position, ...picture, createdAt: now });
          arranged.push(picture);
        }
      }
      const wasPublished = license.published;
      Object.assign(license, input.fields, { published: input.fields.published ?? license.published, updatedAt: now });
      // Checkouts opened while it was on sale are expired at Stripe (the checkout module's handler).
      if (wasPublished && !license.published) recordEvent(tx, 'LicenseHidden', { licenseId: license.id });
      recordAudit(tx, actor, {
        action: 'license.update',
        targetType: 'license',
        targetId: license.id,
        before,
        after: snapshot(license, arranged),
      });
    });
  } catch (error) {
    await removePictures(store, stored);
    throw error;
  }
  await removePictures(store, removed);
  return getLicense(orm, id);
}

/** What a purchase needs of a licence: its name, its price as stored (never the client's), whether it is on sale. */
export async function findLicenseForSale(
  tx: Em,
  id: number,
): Promise<{ id: number; name: string; price: number; published: boolean } | null> {
  // Read in the caller's transaction, from the table: the price charged is the one committed now, never
  // a cached copy (docs/decisions/0023-pooler-and-change-feed.md).
  const license = await tx.findOne(License, { id }, { refresh: true });
  return license ? { id: license.id, name: license.name, price: license.price, published: license.published } : null;
}

/** A purchase of the licence starts (in the caller's transaction): from now on it can be hidden, not deleted. */
export async function noteCheckoutStarted(tx: Em, id: number): Promise<void> {
  await kysely(tx)
    .updateTable('licenses')
    .set({ checkout_started_at: now() })
    .where('id', '=', id)
    .where('checkout_started_at', 'is', null)
    .execute();
}

/** Removes a licence nobody ever started to buy, with its pictures (files too); otherwise 409. Audited. */
export async function deleteLicense(orm: Orm, store: FileStore, actor: Actor, id: number): Promise<void> {
  const pictures = await transact(orm.em as Em, async (tx) => {
    const license = await tx.findOne(License, { id }, { populate: ['pictures'], lockMode: LockMode.PESSIMISTIC_WRITE });
    if (!license) throw new AppError('not_found', LICENSE_NOT_FOUND);
    if (license.checkoutStartedAt) {
      throw new AppError(
        'conflict',
        '購入手続きが行われたライセンスは削除できません。会員に表示しない場合は「非公開」にしてください。',
      );
    }
    const current = license.pictures.getItems();
    recordAudit(tx, actor, { action: 'license.delete', targetType: 'license', targetId: id, before: snapshot(license, current) });
    for (const picture of current) tx.remove(picture);
    tx.remove(license);
    return current.map((p) => ({ fileName: p.fileName, thumbnailName: p.thumbnailName }));
  });
  await removePictures(store, pictures);
}
