import { randomUUID } from 'node:crypto';
import { LockMode } from '@mikro-orm/core';
import { sql } from 'kysely';
import { db as kysely } from '../../db/kysely.ts';
import type { Em, Orm } from '../../db/orm.ts';
import { recordEvent, transact } from '../../events/outbox.ts';
import { AppError, validationError } from '../../http/errors.ts';
import type { UploadedFile } from '../../http/multipart.ts';
import { collectErrors } from '../../http/validate.ts';
import type { FileStore } from '../../storage/file-store.ts';
import type { Actor } from '../audit/index.ts';
import { recordAudit } from '../audit/index.ts';
import { getLicense, LICENSE_NOT_FOUND } from './catalogue.ts';
import { License, LicensePicture } from './entities/license.entity.ts';
import {
  ImageRejected,
  MAX_PICTURES,
  type ProcessedPicture,
  processPicture,
  removePictures,
  type StoredPicture,
  storePictures,
} from './images.ts';
import { type LicenseFieldsData, type PictureSlot, pictureOrder } from './schemas.ts';

const STALE_EDIT = '他の管理者がこのライセンスを先に更新しました。最新の内容を読み込み直してから、もう一度変更してください。';

async function processUploads(files: UploadedFile[]): Promise<ProcessedPicture[]> {
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
  capacity: license.capacity ?? null,
  sale_starts_at: license.saleStartsAt?.toISOString() ?? null,
  sale_ends_at: license.saleEndsAt?.toISOString() ?? null,
  pictures: pictures.map((p) => p.fileName),
});

type Period = { saleStartsAt?: Date | null; saleEndsAt?: Date | null };

function splitTerms(fields: LicenseFieldsData) {
  const { capacity, sale_starts_at, sale_ends_at, published, ...text } = fields;
  return { text, published, terms: { capacity, saleStartsAt: sale_starts_at, saleEndsAt: sale_ends_at } };
}

function checkSalePeriod(given: Period, stored: Period = {}) {
  const starts = given.saleStartsAt === undefined ? stored.saleStartsAt : given.saleStartsAt;
  const ends = given.saleEndsAt === undefined ? stored.saleEndsAt : given.saleEndsAt;
  if (starts && ends && starts >= ends) {
    throw validationError({ sale_ends_at: ['販売終了日時は販売開始日時より後の日時を入力してください。'] });
  }
}

/**
 * Validates a create (`id` null: nothing stored can be kept) or an edit — kept pictures, the picture
 * order, new pictures — without storing anything; every field's errors are reported together.
 */
export async function validateLicense(
  orm: Orm,
  id: number | null,
  pictures: { keep: string[]; order?: string[]; updatedAt?: string; period?: Period },
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
    () => checkSalePeriod(pictures.period ?? {}, license ?? {}),
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
  const { text, published, terms } = splitTerms(fields);
  checkSalePeriod(terms);
  const slots = pictureOrder(order, [], files.length);
  const stored = newInOrder(slots, await storePictures(store, await processUploads(files)));
  try {
    const license = await transact(orm.em as Em, async (tx) => {
      const now = new Date();
      const license = tx.create(License, {
        ...text,
        capacity: terms.capacity ?? null,
        saleStartsAt: terms.saleStartsAt ?? null,
        saleEndsAt: terms.saleEndsAt ?? null,
        published: published ?? true,
        createdAt: now,
        updatedAt: now,
      });
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
      const { text, published, terms } = splitTerms(input.fields);
      checkSalePeriod(terms, license);
      const changed = Object.fromEntries(Object.entries(terms).filter(([, value]) => value !== undefined));
      Object.assign(license, text, changed, { updatedAt: now });
      if (published !== undefined) setPublished(tx, license, published);
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

/**
 * 公開 / 非公開 on a licence being changed in `tx`. Hiding it expires the Checkout Sessions opened while
 * it was on sale (LicenseHidden: the checkout module's handler), whichever screen hides it.
 */
function setPublished(tx: Em, license: License, published: boolean): void {
  const wasPublished = license.published;
  license.published = published;
  if (wasPublished && !published) recordEvent(tx, 'LicenseHidden', { licenseId: license.id });
}

/**
 * The list's 公開/非公開 switch: the same change as the edit form's, without the form (no stale-edit
 * check: it sets one field to what the administrator saw it should be). Audited as a licence edit; a
 * switch to what it already is changes nothing and records nothing.
 */
export async function setLicensePublished(orm: Orm, actor: Actor, id: number, published: boolean) {
  await transact(orm.em as Em, async (tx) => {
    const license = await tx.findOne(License, { id }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    if (!license) throw new AppError('not_found', LICENSE_NOT_FOUND);
    if (license.published === published) return;
    recordAudit(tx, actor, {
      action: 'license.update',
      targetType: 'license',
      targetId: id,
      before: { published: license.published },
      after: { published },
    });
    setPublished(tx, license, published);
    license.updatedAt = new Date();
  });
  return getLicense(orm, id);
}

const NOT_A_LICENSE = 'ライセンスの指定が正しくありません。画面を読み込み直してください。';

/**
 * Rearranges the display order (the catalogue's): every licence, read in order and locked, gets its
 * place 1…n as `arrange` puts them. Each licence whose place changed is audited (license.reorder).
 * `updated_at` stays: the order is not part of the edit form, whose stale-edit check it would upset.
 */
async function rearrange(orm: Orm, actor: Actor, arrange: (ids: number[]) => number[]): Promise<number[]> {
  return transact(orm.em as Em, async (tx) => {
    const rows = await kysely(tx).selectFrom('licenses').select('id').orderBy('sort_order').orderBy('id').forUpdate().execute();
    const before = rows.map((row) => row.id);
    const after = arrange(before);
    const moved = after.flatMap((id, index) =>
      before.indexOf(id) === index ? [] : [{ id, from: before.indexOf(id), to: index }],
    );
    if (after.length) {
      // One parameter for every id, however many: the list's places are their ordinality.
      await kysely(tx)
        .updateTable('licenses as l')
        .from(
          sql<{ id: number; n: number }>`unnest(string_to_array(${after.join(',')}, ',')::int[]) with ordinality`.as<'o'>(
            sql`o(id, n)`,
          ),
        )
        .set((eb) => ({ sort_order: eb.ref('o.n') }))
        .whereRef('l.id', '=', 'o.id')
        .whereRef('l.sort_order', 'is distinct from', 'o.n')
        .execute();
    }
    for (const move of moved) {
      recordAudit(tx, actor, {
        action: 'license.reorder',
        targetType: 'license',
        targetId: move.id,
        before: { position: move.from + 1 },
        after: { position: move.to + 1 },
      });
    }
    return after;
  });
}

/**
 * PUT /api/licenses/order: `ids` (each once) take the places they hold now, in the order given — the
 * whole list reorders everything, a page's ids only that page, two ids swap.
 */
export async function orderLicenses(orm: Orm, actor: Actor, ids: number[]): Promise<number[]> {
  if (new Set(ids).size !== ids.length) throw validationError({ ids: ['同じライセンスが2回指定されています。'] });
  return rearrange(orm, actor, (current) => {
    if (ids.some((id) => !current.includes(id))) throw validationError({ ids: [NOT_A_LICENSE] });
    const places = ids.map((id) => current.indexOf(id)).sort((a, b) => a - b);
    const next = [...current];
    for (const [i, place] of places.entries()) next[place] = ids[i] as number;
    return next;
  });
}

/** POST /api/licenses/{id}/move: one place up or down in the whole order (across list pages). */
export async function moveLicense(orm: Orm, actor: Actor, id: number, direction: 'up' | 'down'): Promise<number[]> {
  return rearrange(orm, actor, (current) => {
    const from = current.indexOf(id);
    if (from < 0) throw new AppError('not_found', LICENSE_NOT_FOUND);
    const to = direction === 'up' ? from - 1 : from + 1;
    if (to < 0 || to >= current.length) {
      throw validationError({ direction: [direction === 'up' ? 'すでに先頭です。' : 'すでに最後です。'] });
    }
    const next = [...current];
    next[from] = current[to] as number;
    next[to] = id;
    return next;
  });
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
