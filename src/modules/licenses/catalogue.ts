import { LockMode } from '@mikro-orm/core';
import { sql } from 'kysely';
import { type ChangeFeed, cached, tableCache } from '../../db/changes.ts';
import { countAll, db as kysely, now } from '../../db/kysely.ts';
import type { Em, Orm } from '../../db/orm.ts';
import { AppError } from '../../http/errors.ts';
import { japanMonthDayTime } from '../../lib/japan-time.ts';
import { License, type LicensePicture } from './entities/license.entity.ts';
import { PICTURE_DIRECTORY } from './images.ts';
import type { ListQueryData } from './schemas.ts';

export const LICENSE_NOT_FOUND = 'エラー: ライセンスが見つかりませんでした。';

type PictureRow = Pick<LicensePicture, 'fileName' | 'thumbnailName' | 'width' | 'height' | 'originalName'>;

/** The licence at the API edge, with the seed's `picture_directory` and `pictures_pathes`. */
function licenseDto(
  license: Pick<License, 'id' | 'name' | 'description' | 'price' | 'published' | 'sortOrder' | 'capacity'> & {
    /** An entity's Date, or a row's timestamp text. */
    createdAt: Date | string;
    updatedAt: Date | string;
    saleStartsAt?: Date | string | null;
    saleEndsAt?: Date | string | null;
  },
  pictures: PictureRow[],
) {
  return {
    id: license.id,
    name: license.name,
    description: license.description,
    price: license.price,
    published: license.published,
    // The display order set by the administrators (smallest first): the catalogue's order.
    sort_order: license.sortOrder,
    capacity: license.capacity ?? null,
    sale_starts_at: license.saleStartsAt ? new Date(license.saleStartsAt).toISOString() : null,
    sale_ends_at: license.saleEndsAt ? new Date(license.saleEndsAt).toISOString() : null,
    created_at: new Date(license.createdAt).toISOString(),
    updated_at: new Date(license.updatedAt).toISOString(),
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

type SortColumn = 'sort_order' | 'id' | 'name' | 'price' | 'updated_at';
const SORT_COLUMNS: Record<string, SortColumn> = {
  position: 'sort_order',
  id: 'id',
  name: 'name',
  price: 'price',
  updated_at: 'updated_at',
};

/** A picture as the catalogue's statement gives it (json_build_object). */
interface PictureJson {
  file_name: string;
  thumbnail_name: string;
  width: number;
  height: number;
  original_name: string | null;
}

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

/**
 * One statement for the page, its total and every picture of its licences, read as rows (no entities
 * to build). The id breaks ties; when the sort is the id itself it must not override its direction.
 */
function catalogueQuery(
  em: Em,
  { column, direction, includeHidden }: { column: SortColumn; direction: 'asc' | 'desc'; includeHidden: boolean },
  limit: number,
  offset: number,
) {
  return kysely(em)
    .selectFrom((eb) =>
      eb
        .selectFrom('licenses as l')
        .select((s) => [
          'l.id',
          'l.name',
          'l.description',
          'l.price',
          'l.published',
          'l.sort_order',
          'l.capacity',
          'l.sale_starts_at',
          'l.sale_ends_at',
          'l.created_at',
          'l.updated_at',
          s.fn.countAll<string>().over().as('total'),
        ])
        .$if(!includeHidden, (qb) => qb.where((w) => w.ref('l.published')))
        .orderBy(`l.${column}`, direction)
        .$if(column !== 'id', (qb) => qb.orderBy('l.id', 'asc'))
        .limit(limit)
        .offset(offset)
        .as('page'),
    )
    .selectAll('page')
    .select((eb) =>
      eb
        .selectFrom('license_pictures as p')
        .select((s) =>
          s.fn
            .coalesce(
              s.fn
                .agg<PictureJson[]>('json_agg', [
                  s.fn('json_build_object', [
                    sql.lit('file_name'),
                    s.ref('p.file_name'),
                    sql.lit('thumbnail_name'),
                    s.ref('p.thumbnail_name'),
                    sql.lit('width'),
                    s.ref('p.width'),
                    sql.lit('height'),
                    s.ref('p.height'),
                    sql.lit('original_name'),
                    s.ref('p.original_name'),
                  ]),
                ])
                .orderBy('p.position'),
              sql<PictureJson[]>`'[]'::json`,
            )
            .as('pictures'),
        )
        .whereRef('p.license_id', '=', 'page.id')
        .$asScalar()
        .as('pictures'),
    )
    .orderBy(`page.${column}`, direction)
    .$if(column !== 'id', (qb) => qb.orderBy('page.id', 'asc'));
}

async function readLicenses(orm: Orm, query: ListQueryData, options: { includeHidden: boolean }) {
  const direction = query.sort.startsWith('-') ? 'desc' : 'asc';
  const column = SORT_COLUMNS[query.sort.replace(/^-/, '')] ?? 'id';
  const offset = (query.page - 1) * query.per_page;
  const em = orm.em.fork() as Em;
  const rows = await catalogueQuery(
    em,
    { column, direction, includeHidden: options.includeHidden },
    query.per_page,
    offset,
  ).execute();
  let total = Number(rows[0]?.total ?? 0);
  if (rows.length === 0 && offset > 0) {
    const count = await kysely(em)
      .selectFrom('licenses')
      .select((eb) => countAll(eb).as('total'))
      .$if(!options.includeHidden, (qb) => qb.where((w) => w.ref('published')))
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
          sortOrder: row.sort_order,
          capacity: row.capacity,
          saleStartsAt: row.sale_starts_at,
          saleEndsAt: row.sale_ends_at,
          createdAt: row.created_at,
          updatedAt: row.updated_at,
        },
        (row.pictures ?? []).map((p) => ({
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
  options: { includeHidden: boolean; withDeletable?: boolean } = { includeHidden: true },
): Promise<LicenseDto & { deletable?: boolean }> {
  const license = await orm.em.fork().findOne(License, { id }, { populate: ['pictures'] });
  if (!license || (!license.published && !options.includeHidden)) throw new AppError('not_found', LICENSE_NOT_FOUND);
  const dto = licenseDto(license, license.pictures.getItems());
  // Administrators are told whether 削除する can succeed: not once anyone started to buy it (409).
  return options.withDeletable ? { ...dto, deletable: license.checkoutStartedAt == null } : dto;
}

/** What a purchase needs of a licence: its name, its price as stored (never the client's), whether it is on sale. */
export async function findLicenseForSale(tx: Em, id: number, options: { lock?: boolean } = {}) {
  // Read in the caller's transaction, from the table: the price charged is the one committed now, never
  // a cached copy (docs/decisions/0023-pooler-and-change-feed.md).
  const license = await tx.findOne(
    License,
    { id },
    { refresh: true, ...(options.lock ? { lockMode: LockMode.PESSIMISTIC_WRITE } : {}) },
  );
  return license
    ? {
        id: license.id,
        name: license.name,
        price: license.price,
        published: license.published,
        capacity: license.capacity ?? null,
        saleStartsAt: license.saleStartsAt ?? null,
        saleEndsAt: license.saleEndsAt ?? null,
      }
    : null;
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

/** A port: checkout counts seats, and licences may import neither it nor sales (decision 0047). */
export type SeatsTaken = (em: Em, licenseIds: number[], options?: { exceptOpenOf?: string }) => Promise<Map<number, number>>;

declare module '../../http/context.ts' {
  interface ModuleServices {
    seatsTaken: SeatsTaken;
  }
}

type SaleState = 'on_sale' | 'before_sale' | 'sale_ended' | 'sold_out';

interface SaleTerms {
  capacity: number | null;
  saleStartsAt: Date | null;
  saleEndsAt: Date | null;
}

export function periodState(terms: SaleTerms, at: Date): 'before_sale' | 'sale_ended' | 'on_sale' {
  if (terms.saleStartsAt && at < terms.saleStartsAt) return 'before_sale';
  if (terms.saleEndsAt && at >= terms.saleEndsAt) return 'sale_ended';
  return 'on_sale';
}

export function availability(terms: SaleTerms, taken: number, at: Date) {
  const remaining = terms.capacity === null ? null : Math.max(terms.capacity - taken, 0);
  const period = periodState(terms, at);
  return {
    sale_state: (period === 'on_sale' && remaining === 0 ? 'sold_out' : period) as SaleState,
    remaining_seats: remaining,
  };
}

export function notOnSaleMessage(terms: SaleTerms, at: Date): string {
  return periodState(terms, at) === 'before_sale' && terms.saleStartsAt
    ? `このライセンスは${japanMonthDayTime(terms.saleStartsAt)}（日本時間）から販売します。`
    : 'このライセンスの販売期間は終了しました。';
}

export const SOLD_OUT_MESSAGE = 'このライセンスは満席のため、現在お申し込みいただけません。';

interface WithTerms {
  id: number;
  capacity: number | null;
  sale_starts_at: string | null;
  sale_ends_at: string | null;
}

/** Seats read fresh, never from the cached page: a checkout changes them without touching the licence. */
export async function withAvailability<T extends WithTerms>(
  deps: { orm: Orm; seatsTaken: SeatsTaken },
  licenses: T[],
): Promise<(T & ReturnType<typeof availability>)[]> {
  const limited = licenses.filter((l) => l.capacity !== null).map((l) => l.id);
  const taken = limited.length ? await deps.seatsTaken(deps.orm.em.fork() as Em, limited) : new Map<number, number>();
  const at = new Date();
  return licenses.map((license) => ({
    ...license,
    ...availability(
      {
        capacity: license.capacity,
        saleStartsAt: license.sale_starts_at ? new Date(license.sale_starts_at) : null,
        saleEndsAt: license.sale_ends_at ? new Date(license.sale_ends_at) : null,
      },
      taken.get(license.id) ?? 0,
      at,
    ),
  }));
}

const pageBodies = new WeakMap<object, { bytes: Uint8Array<ArrayBuffer>; until: number }>();

/** The next start or end of a sale window after `now`: where a page's sale states change by themselves. */
function nextEdge(licenses: readonly WithTerms[], now: number): number {
  const edges = licenses
    .flatMap((l) => [l.sale_starts_at, l.sale_ends_at])
    .map((at) => (at ? Date.parse(at) : Number.POSITIVE_INFINITY))
    .filter((at) => at > now);
  return Math.min(...edges, Number.POSITIVE_INFINITY);
}

/**
 * A catalogue page as the JSON bytes sent. A page without seat limits changes only with the licences
 * (a new cached page) or at a sale window's edge, so its bytes are kept until then: every member's
 * first screen is not stringified and encoded again. Pages with seats are built fresh each time.
 */
export async function catalogueBody<P extends { licenses: WithTerms[] }>(
  deps: { orm: Orm; seatsTaken: SeatsTaken },
  page: P,
): Promise<Uint8Array<ArrayBuffer>> {
  const now = Date.now();
  const kept = pageBodies.get(page);
  if (kept && now < kept.until) return kept.bytes;
  const bytes = new TextEncoder().encode(JSON.stringify({ ...page, licenses: await withAvailability(deps, page.licenses) }));
  if (page.licenses.every((l) => l.capacity === null)) pageBodies.set(page, { bytes, until: nextEdge(page.licenses, now) });
  return bytes;
}
