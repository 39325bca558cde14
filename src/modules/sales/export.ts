import { createHash, randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { PassThrough } from 'node:stream';
import { LockMode } from '@mikro-orm/core';
import iconv from 'iconv-lite';
import type { Em, Orm } from '../../db/orm.ts';
import { recordEvent, transact } from '../../events/outbox.ts';
import { AppError, validationError } from '../../http/errors.ts';
import {
  CP932,
  contentDisposition,
  csvHeader,
  csvRecord,
  downloadNames,
  replaceUnmappable,
  toCp932Forms,
  unmappableIn,
} from '../../lib/csv.ts';
import type { Logger } from '../../lib/logger.ts';
import type { FileStore } from '../../storage/file-store.ts';
import { AFFILIATIONS, type Buyer, combinedAffiliationName, currentBuyers } from '../accounts/index.ts';
import { type Actor, recordAudit } from '../audit/index.ts';
import { findLicenseForSale } from '../licenses/index.ts';
import { Export } from './entities/export.entity.ts';
import { countChanged, type SalesFilter, salesWhere } from './service.ts';

export const EXPORT_HEADER = ['メールアドレス', '姓', '名', '言語', 'グループ', '所属', '所属名', 'ライセンス名', '購入日時'];
const FIELD_OF_COLUMN = [
  'email',
  'last_name',
  'first_name',
  null,
  'group',
  null,
  'affiliation_name',
  'license_name',
  null,
] as const;
export type ExportEncoding = 'utf-8' | 'shift_jis';
/** Sales per page of an export (about; see rangesOf), and at most per page. */
const BATCH = 5_000;
const PAGE_LIMIT = 4 * BATCH;
/** Pages of an export read at once, each on its own connection, while the oldest is written. */
const PAGES_IN_FLIGHT = 3;
const PROGRESS_EVERY = 20_000;
const EXPORT_NOT_FOUND = 'エクスポートが見つかりませんでした。';
/** How often a running export's job says it is alive (the sweeper fails one that stops). */
const HEARTBEAT_MS = 1_000;
export const EXPORT_INTERRUPTED =
  'CSVの作成が途中で止まりました（処理していたワーカーが停止しました）。「再実行」で作り直してください。';
export const EXPORT_GAVE_UP = 'CSVの作成を何度か試みましたが完了できませんでした。「再実行」で作り直してください。';

const EXPORTS = 'exports/';
/** The export an unfinished write under EXPORTS belongs to (its key starts with the export's id). */
const EXPORT_KEY = /^exports\/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})(\.|$)/;
/** The file store key of an export's file (rows written before the file store hold only its name). */
const keyOfExportFile = (fileName: string) => (fileName.includes('/') ? fileName : `${EXPORTS}${fileName}`);
/** Bytes a build may have handed the store and not yet written (memory stays flat). */
const WRITE_BUFFER_BYTES = 1024 * 1024;

export function exportDto(row: Export) {
  return {
    id: row.id,
    state: row.state,
    batch: row.batch,
    row_count: row.rowCount,
    total_rows: row.totalRows ?? null,
    encoding: row.encoding,
    replace_unmappable: row.replaceUnmappable,
    filters: row.filters,
    license_name: row.licenseName ?? null,
    error: row.error,
    // The job's last attempt failed and BullMQ tries again: the screen says so, with the reason.
    last_error: row.lastError ?? null,
    last_error_at: row.lastErrorAt ? new Date(row.lastErrorAt).toISOString() : null,
    retrying: Boolean(row.lastError) && (row.state === 'queued' || row.state === 'running'),
    sha256: row.sha256 ?? null,
    requested_by: row.requestedByEmail ?? null,
    created_at: row.createdAt.toISOString(),
    finished_at: row.finishedAt ? row.finishedAt.toISOString() : null,
    completed_at: row.completedAt ? row.completedAt.toISOString() : null,
    completed_by: row.completedBy ?? null,
    file_name: downloadNames(row.licenseName ?? null, row.createdAt).utf8,
    download_url: row.state === 'done' ? `/api/exports/${row.id}/download` : null,
  };
}

export interface ExportRequest {
  filter: SalesFilter;
  encoding: ExportEncoding;
  /** Freeze the 出力待ち sales it holds and move them to 処理中 in the same transaction. */
  batch: boolean;
  /** Shift_JIS only: write 〓 for characters CP932 cannot hold (otherwise they refuse the export). */
  replaceUnmappable: boolean;
  expectedCount?: number;
}

/** Buyers looked up once per export run; past this many the cache starts again (memory stays bounded). */
const MAX_CACHED_BUYERS = 200_000;

type ExportSource = { batchId: string } | { filter: SalesFilter };

/** One page of an export's sales, column by column (購入日時 as Japan time, ISO 8601). */
interface SalesPage {
  ids: number[];
  userIds: (string | null)[];
  licenseNames: string[];
  paidAt: string[];
}

/** Sales ids after `after`, up to and including `upTo`. */
interface IdRange {
  after: number;
  upTo: number;
}

/** The sales an export holds: how many, and their first and last ids. */
interface Span {
  count: number;
  first: number;
  last: number;
}

/** The span of an export's sales (a batch's frozen ones, or those its filters match now). */
async function spanOf(em: Em, source: ExportSource): Promise<Span> {
  const query =
    'batchId' in source
      ? { sql: 'from export_sales e where e.export_id = ?', id: 'e.sale_id', params: [source.batchId] }
      : (() => {
          const where = salesWhere({ ...source.filter, exportable: true });
          return { sql: `from sales s ${where.sql}`, id: 's.id', params: where.params };
        })();
  const [span] = await em.execute<{ count: number; first: number | null; last: number | null }[]>(
    `select count(*)::int as count, min(${query.id}) as first, max(${query.id}) as last ${query.sql}`,
    query.params,
  );
  return { count: span?.count ?? 0, first: Number(span?.first ?? 0), last: Number(span?.last ?? 0) };
}

/**
 * The span cut into id ranges that each hold about BATCH of its sales (sales ids are dense enough):
 * they can be read side by side, on several connections, and written in order.
 */
function* rangesOf(span: Span): Generator<IdRange> {
  if (!span.count) return;
  const width = Math.max(BATCH, Math.ceil((BATCH * (span.last - span.first + 1)) / span.count));
  for (let after = span.first - 1; after < span.last; after += width) yield { after, upTo: Math.min(after + width, span.last) };
}

/**
 * One page of an export's sales in an id range (at most PAGE_LIMIT; the rest of a crowded range is
 * read after it): a batch's frozen sales, or the sales its filters match. PostgreSQL hands the page
 * over as one JSON value of four column arrays (one string to decode and one JSON.parse per 5,000
 * rows), and only the columns every row needs: the buyer's details come from the accounts module,
 * the purchase-time snapshot only where the member is gone.
 */
async function pageOf(em: Em, source: ExportSource, range: IdRange): Promise<SalesPage> {
  const page =
    'batchId' in source
      ? {
          sql: `select s.id, s.user_id, s.license_name, s.paid_at from export_sales e join sales s on s.id = e.sale_id
                where e.export_id = ? and e.sale_id > ? and e.sale_id <= ? order by e.sale_id limit ${PAGE_LIMIT}`,
          params: [source.batchId, range.after, range.upTo],
        }
      : (() => {
          const where = salesWhere({ ...source.filter, exportable: true });
          return {
            sql: `select s.id, s.user_id, s.license_name, s.paid_at from sales s
                  ${where.sql ? `${where.sql} and` : 'where'} s.id > ? and s.id <= ? order by s.id limit ${PAGE_LIMIT}`,
            params: [...where.params, range.after, range.upTo],
          };
        })();
  // JSON writes a timestamp as ISO 8601 whatever the session's DateStyle: no Date per row in Node.
  const [result] = await em.execute<{ page: string | null }[]>(
    `select json_build_array(array_agg(p.id), array_agg(p.user_id), array_agg(p.license_name),
       array_agg(p.paid_at at time zone 'Asia/Tokyo'))::text as page
     from (${page.sql}) p`,
    page.params,
  );
  const [ids, userIds, licenseNames, paidAt] = JSON.parse(result?.page ?? '[]') as [
    number[] | null,
    (string | null)[] | null,
    string[] | null,
    string[] | null,
  ];
  const columns = { ids: ids ?? [], userIds: userIds ?? [], licenseNames: licenseNames ?? [], paidAt: paidAt ?? [] };
  return ascending(columns.ids) ? columns : sortedPage(columns);
}

function ascending(ids: readonly number[]): boolean {
  for (let i = 1; i < ids.length; i++) if ((ids[i] as number) <= (ids[i - 1] as number)) return false;
  return true;
}

/** The page in sale order (PostgreSQL aggregates its ordered subquery in order; this is only the guarantee). */
function sortedPage(page: SalesPage): SalesPage {
  const order = page.ids.map((_, i) => i).sort((a, b) => (page.ids[a] as number) - (page.ids[b] as number));
  const pick = <T>(values: T[]) => order.map((i) => values[i] as T);
  return { ids: pick(page.ids), userIds: pick(page.userIds), licenseNames: pick(page.licenseNames), paidAt: pick(page.paidAt) };
}

/** 2026-11-22T15:30:00.123 (Japan time) → 2026/11/22 15:30:00, as the training system reads it. */
const jstCell = (iso: string) => `${iso.slice(0, 4)}/${iso.slice(5, 7)}/${iso.slice(8, 10)} ${iso.slice(11, 19)}`;
/** The last cell of a record, 購入日時, with the line's CRLF: always 21 ASCII bytes. */
const jstLine = (iso: string) => `${jstCell(iso)}\r\n`;
const DATE_LINE_BYTES = 21;

function buyerCells(
  buyer: Pick<Buyer, 'email' | 'lastName' | 'firstName' | 'affiliation' | 'affiliationName' | 'affiliationOther'>,
  groupName: string,
): string[] {
  return [
    buyer.email,
    buyer.lastName,
    buyer.firstName,
    '日本語',
    groupName,
    buyer.affiliation ? (AFFILIATIONS[buyer.affiliation as keyof typeof AFFILIATIONS] ?? '') : '',
    combinedAffiliationName(buyer.affiliation, buyer.affiliationName, buyer.affiliationOther),
  ];
}

/** The purchase-time snapshots of sales whose member is gone. */
async function snapshotsOf(em: Em, saleIds: number[], groupName: string): Promise<Map<number, string[]>> {
  const rows = await em.execute<
    {
      id: number;
      email: string;
      lastName: string;
      firstName: string;
      affiliation: number | null;
      affiliationName: string;
      affiliationOther: string | null;
    }[]
  >(
    `select id, buyer_email as "email", buyer_last_name as "lastName", buyer_first_name as "firstName",
       buyer_affiliation as "affiliation", buyer_affiliation_name as "affiliationName", buyer_affiliation_other as "affiliationOther"
     from sales where id = any(string_to_array(?, ',')::bigint[])`,
    [saleIds.join(',')],
  );
  return new Map(rows.map((row) => [Number(row.id), buyerCells(row, groupName)]));
}

/** A page of records: per sale its buyer (as `person` made it), licence name and JST purchase time. */
interface RecordBatch<P> {
  ids: number[];
  people: P[];
  licenseNames: string[];
  paidAt: string[];
}

/**
 * The export's records, page by page: the member's current details while the account exists, the
 * purchase-time snapshot once it is deleted. Each member is looked up (and made into a `person`, e.g.
 * their CSV cells already written) once per run, however many licences they bought. The next page
 * is already being read (by PostgreSQL, on another connection) while this one is written.
 */
async function* records<P>(
  em: Em,
  source: ExportSource,
  span: Span,
  groupName: string,
  person: (cells: string[], saleId: number) => P,
): AsyncGenerator<RecordBatch<P>> {
  const known = new Map<string, P | null>();
  // Pages, and the members they bring, are read side by side (a member met in two pages at once may
  // be looked up twice, harmlessly).
  const read = async (range: IdRange): Promise<RecordBatch<P> & { range: IdRange }> => ({
    ...(await withPeople(await pageOf(em, source, range))),
    range,
  });
  const withPeople = async (page: SalesPage): Promise<RecordBatch<P>> => {
    const { ids, userIds } = page;
    const people = new Array<P>(ids.length);
    // Sales whose member this run has not met yet, and sales whose member is gone (null).
    let pending: number[] = [];
    const unknown = new Set<string>();
    for (let i = 0; i < ids.length; i++) {
      const userId = userIds[i] ?? null;
      const known_ = userId === null ? null : known.get(userId);
      if (known_ === undefined) {
        pending.push(i);
        unknown.add(userId as string);
      } else if (known_ === null) pending.push(i);
      else people[i] = known_;
    }
    if (unknown.size) {
      if (known.size + unknown.size > MAX_CACHED_BUYERS) known.clear();
      const found = await currentBuyers(em, [...unknown]);
      const gone: number[] = [];
      for (const i of pending) {
        const userId = userIds[i] ?? null;
        let known_ = userId === null ? null : known.get(userId);
        if (known_ === undefined) {
          const buyer = found.get(userId as string);
          known_ = buyer ? person(buyerCells(buyer, groupName), ids[i] as number) : null;
          known.set(userId as string, known_);
        }
        if (known_ === null) gone.push(i);
        else people[i] = known_;
      }
      pending = gone;
    }
    if (pending.length) {
      const snapshots = await snapshotsOf(
        em,
        pending.map((i) => ids[i] as number),
        groupName,
      );
      for (const i of pending) {
        const cells = snapshots.get(ids[i] as number);
        if (!cells) throw new Error(`sale ${ids[i]} vanished during the export`);
        people[i] = person(cells, ids[i] as number);
      }
    }
    return { ids: page.ids, people, licenseNames: page.licenseNames, paidAt: page.paidAt };
  };
  const ranges = rangesOf(span);
  const inFlight: Promise<RecordBatch<P> & { range: IdRange }>[] = [];
  const more = () => {
    const range = ranges.next();
    if (range.done) return;
    const reading = read(range.value);
    // A consumer that stops early must not leave a prefetch's failure unhandled.
    reading.catch(() => undefined);
    inFlight.push(reading);
  };
  for (let i = 0; i < PAGES_IN_FLIGHT; i++) more();
  for (let reading = inFlight.shift(); reading; reading = inFlight.shift()) {
    more();
    let batch = await reading;
    if (batch.ids.length) yield batch;
    // A crowded range: the rest of it, in order, before the next range.
    while (batch.ids.length === PAGE_LIMIT) {
      batch = await read({ after: batch.ids.at(-1) as number, upTo: batch.range.upTo });
      if (batch.ids.length) yield batch;
    }
  }
}

export interface Unmappable {
  sale_id: number;
  field: string;
  text: string;
  characters: string[];
}

/** Every cell that CP932 cannot hold, with its sale and field (the screen shows them before a Shift_JIS export). */
async function findUnmappable(
  em: Em,
  source: ExportSource,
  groupName: string,
  limit = 200,
): Promise<{ problems: Unmappable[]; total: number }> {
  const problems: Unmappable[] = [];
  let total = 0;
  // A member's cells are checked once; each of their sales is listed.
  const check = (cells: string[]) => cells.map((text) => ({ text, characters: unmappableIn(text) }));
  for await (const batch of records(em, source, await spanOf(em, source), groupName, check)) {
    batch.ids.forEach((saleId, i) => {
      const licenseName = batch.licenseNames[i] ?? '';
      const cells = [
        ...(batch.people[i] ?? []),
        { text: licenseName, characters: unmappableIn(licenseName) },
        { text: jstCell(batch.paidAt[i] ?? ''), characters: [] as string[] },
      ];
      cells.forEach(({ text, characters }, column) => {
        if (!characters.length) return;
        total++;
        if (problems.length < limit) {
          problems.push({ sale_id: saleId, field: FIELD_OF_COLUMN[column] ?? EXPORT_HEADER[column] ?? '', text, characters });
        }
      });
    });
  }
  return { problems, total };
}

/** GET /api/exports/preflight: what a Shift_JIS (CP932) export of these sales could not hold. */
export async function preflight(orm: Orm, filter: SalesFilter, batch: boolean, groupName: string) {
  const em = orm.em.fork() as Em;
  // A batch would hold the 出力待ち sales of the search.
  const { problems, total } = await findUnmappable(em, { filter: batch ? { ...filter, status: 0 } : filter }, groupName);
  return { problems, total };
}

function unmappableError(found: { problems: Unmappable[]; total: number }) {
  const first = found.problems
    .slice(0, 3)
    .map((p) => `注文番号${p.sale_id}の「${p.characters.join('')}」`)
    .join('、');
  return validationError(
    {
      encoding: [
        `Shift_JIS（CP932）で表せない文字が${found.total}か所あります（${first}など）。UTF-8で作成するか、〓に置き換えて作成してください。`,
      ],
    },
    'Shift_JIS（CP932）で表せない文字があります。',
  );
}

/**
 * Queues a training-system CSV. A batch freezes the 出力待ち sales the filters match and moves them
 * to 処理中 in this transaction (never half-moved; a sale is in one open batch at most); a plain
 * export holds the 出力待ち and 処理中 sales the filters match. A Shift_JIS export whose cells CP932
 * cannot hold is refused (422, listing them) unless they may become 〓.
 */
export async function requestExport(orm: Orm, actor: Actor, request: ExportRequest, groupName: string) {
  const em = orm.em.fork() as Em;
  const filter = request.filter;
  if (request.encoding === 'shift_jis' && !request.replaceUnmappable) {
    const found = await findUnmappable(em, { filter: request.batch ? { ...filter, status: 0 } : filter }, groupName, 20);
    if (found.total) {
      const error = unmappableError(found);
      throw new AppError('validation', error.message, { errors: error.errors, details: { problems: found.problems } });
    }
  }
  const license = filter.licenseId ? await findLicenseForSale(em, filter.licenseId) : null;
  const row = await transact(orm.em as Em, async (tx) => {
    let moved: number[] | null = null;
    const created = tx.create(Export, {
      id: randomUUID(),
      requestedBy: actor.id,
      requestedByEmail: actor.email,
      filters: { ...filter },
      encoding: request.encoding,
      replaceUnmappable: request.replaceUnmappable,
      batch: request.batch,
      licenseName: license?.name ?? null,
      state: 'queued',
      rowCount: 0,
      createdAt: new Date(),
    });
    if (request.batch) {
      await tx.flush();
      const where = salesWhere({ ...filter, status: 0 });
      const frozen = await tx.execute<{ sale_id: number }[]>(
        `with moved as (
           update sales s set status = 1, batch_id = ?, updated_at = now()
           ${where.sql} and s.refunded_at is null and s.batch_id is null
           returning s.id)
         insert into export_sales (export_id, sale_id) select ?, id from moved returning sale_id`,
        [created.id, ...where.params, created.id],
      );
      if (request.expectedCount !== undefined && frozen.length !== request.expectedCount) {
        throw countChanged(frozen.length, request.expectedCount);
      }
      if (frozen.length === 0) throw validationError({ batch: ['この条件に「出力待ち」の売上はありません。'] });
      created.totalRows = frozen.length;
      const saleIds = frozen.map((r) => r.sale_id).sort((a, b) => a - b);
      recordEvent(tx, 'SaleStatusChanged', { saleIds, from: 0, to: 1, actorId: actor.id });
      moved = saleIds;
    }
    recordEvent(tx, 'ExportRequested', { exportId: created.id });
    recordAudit(tx, actor, {
      action: request.batch ? 'sale.export.batch' : 'sale.export',
      targetType: 'export',
      targetId: created.id,
      after: {
        filters: filter,
        encoding: request.encoding,
        batch: request.batch,
        replace_unmappable: request.replaceUnmappable,
        rows: created.totalRows ?? null,
        // The audit log shows how many sales moved and links to them (never the whole list).
        ...(moved ? { sale_ids: moved } : {}),
      },
    });
    return created;
  });
  return exportDto(row);
}

export async function getExport(orm: Orm, id: string) {
  const row = await orm.em.fork().findOne(Export, { id });
  if (!row) throw new AppError('not_found', EXPORT_NOT_FOUND);
  return row;
}

/** The export history, newest first. */
export async function listExports(orm: Orm, page: number, perPage: number) {
  const [rows, total] = await orm.em
    .fork()
    .findAndCount(Export, {}, { orderBy: { createdAt: 'desc', id: 'desc' }, limit: perPage, offset: (page - 1) * perPage });
  return { exports: rows.map(exportDto), total, page, per_page: perPage };
}

const exportContentType = (encoding: string) => `text/csv; charset=${encoding === 'shift_jis' ? 'Shift_JIS' : 'UTF-8'}`;

/** A finished export's file, byte-identical every time; each download is audited. */
export async function openDownload(orm: Orm, actor: Actor, files: FileStore, id: string, log?: Logger) {
  const row = await getExport(orm, id);
  if (row.state !== 'done' || !row.fileName) throw new AppError('conflict', 'エクスポートはまだ完了していません。');
  const file = await files.get(keyOfExportFile(row.fileName));
  if (!file) {
    // A finished export's file is never deleted by the shop: its store lost it, an operator must look.
    log?.error('export file missing', { export: row.id, key: keyOfExportFile(row.fileName) });
    throw new AppError('not_found', 'エクスポートのファイルが見つかりませんでした。もう一度作成してください。');
  }
  try {
    await transact(orm.em as Em, async (tx) => {
      recordAudit(tx, actor, {
        action: 'sale.export.download',
        targetType: 'export',
        targetId: row.id,
        after: { sha256: row.sha256 },
      });
    });
  } catch (error) {
    file.stream.destroy();
    throw error;
  }
  return {
    stream: file.stream,
    size: file.length,
    contentType: exportContentType(row.encoding),
    disposition: contentDisposition(downloadNames(row.licenseName ?? null, row.createdAt)),
  };
}

/** POST /api/exports/{id}/complete: the training system registered the batch; its 処理中 sales become 登録済み. */
export async function completeBatch(orm: Orm, actor: Actor, id: string) {
  return transact(orm.em as Em, async (tx) => {
    const row = await tx.findOne(Export, { id }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    if (!row) throw new AppError('not_found', EXPORT_NOT_FOUND);
    if (!row.batch) throw validationError({ batch: ['一括処理（バッチ）のエクスポートではありません。'] });
    if (row.completedAt) throw new AppError('conflict', 'このバッチは既に登録済みにしました。');
    if (row.state !== 'done') throw new AppError('conflict', 'CSVの作成が終わってから登録済みにしてください。');
    const moved = await tx.execute<{ id: number }[]>(
      `update sales set status = 2, batch_id = null, updated_at = now()
       where batch_id = ? and status = 1 and refunded_at is null returning id`,
      [id],
    );
    const saleIds = moved.map((r) => r.id).sort((a, b) => a - b);
    if (saleIds.length) recordEvent(tx, 'SaleStatusChanged', { saleIds, from: 1, to: 2, actorId: actor.id });
    row.completedAt = new Date();
    row.completedBy = actor.email;
    recordAudit(tx, actor, {
      action: 'sale.export.complete',
      targetType: 'export',
      targetId: id,
      before: { status: 1, sale_ids: saleIds },
      after: { status: 2, sale_ids: saleIds },
    });
    return { export: exportDto(row), moved: saleIds.length };
  });
}

/**
 * A cell as the file's encoding holds it: UTF-8 as it is; CP932 in its CP932 forms, with 〓 for what
 * CP932 cannot hold when the administrator chose that, or else the export refused.
 */
function cellWriter(cp932: boolean, replace: boolean): (text: string, saleId: number) => string {
  if (!cp932) return (text) => text;
  if (replace) return replaceUnmappable;
  return (text, saleId) => {
    const unmappable = unmappableIn(text);
    if (unmappable.length) {
      throw new AppError(
        'validation',
        `注文番号${saleId}に Shift_JIS（CP932）で表せない文字「${unmappable.join('')}」があります。UTF-8で作成するか、〓に置き換えて作成してください。`,
      );
    }
    return toCp932Forms(text);
  };
}

/**
 * Builds the CSV of an export: rows read in keyset batches (memory stays flat), the members' current
 * details looked up per batch, written one CSV chunk per batch in csv-stringify's dialect (comma, CRLF,
 * formula cells as text; lib/csv.ts) streamed into the file store — UTF-8 with BOM, or CP932 — and
 * hashed; the store makes it visible only once complete. Progress (rows written) is saved as it goes.
 * A finished export is not built again; a failed or interrupted one is rebuilt from its frozen set.
 */
export async function buildExport(
  em: Em,
  files: FileStore,
  groupName: string,
  exportId: string,
  log?: Logger,
): Promise<'done' | 'skipped'> {
  const row = await em.findOne(Export, { id: exportId });
  if (!row || row.state === 'done') return 'skipped';
  const source = row.batch ? { batchId: row.id } : { filter: row.filters as SalesFilter };
  // The sales it holds from now on (a batch's were frozen at its creation).
  const span = await spanOf(em, source);
  row.totalRows = span.count;
  await em.execute(
    `update exports set state = 'running', error = null, row_count = 0, total_rows = ?, started_at = now(),
       heartbeat_at = now(), finished_at = null where id = ?`,
    [row.totalRows ?? null, exportId],
  );
  // Keyed by the export, so a failure and the sweeper can find its unfinished write (EXPORT_KEY).
  const key = `${EXPORTS}${exportId}.csv`;
  const cp932 = row.encoding === 'shift_jis';
  const replace = row.replaceUnmappable;
  const hash = createHash('sha256');
  const out = new PassThrough({ highWaterMark: WRITE_BUFFER_BYTES });
  const stored = files.put(key, out, { contentType: exportContentType(row.encoding) });
  const failed = new Promise<never>((_, reject) => {
    stored.catch(reject);
    out.once('error', reject);
  });
  failed.catch(() => undefined);
  const encode = (text: string) => (cp932 ? iconv.encode(text, CP932) : Buffer.from(text, 'utf8'));
  /** Hashes and writes one chunk, waiting while the store is behind (memory stays flat). */
  const write = async (bytes: Buffer) => {
    hash.update(bytes);
    if (!out.write(bytes)) await Promise.race([once(out, 'drain'), failed]);
  };
  let count = 0;
  let reported = 0;
  let beat = Date.now();
  try {
    await write(encode(csvHeader(EXPORT_HEADER, !cp932)));
    // Each member's cells and each licence name are written and encoded once per run, and their
    // bytes copied for every sale; 購入日時 is ASCII in both encodings.
    const cell = cellWriter(cp932, replace);
    const person = (cells: string[], saleId: number) => encode(`${csvRecord(cells.map((text) => cell(text, saleId)))},`);
    const licences = new Map<string, Buffer>();
    for await (const batch of records(em, source, span, groupName, person)) {
      const rows = batch.ids.length;
      const names = new Array<Buffer>(rows);
      let size = rows * DATE_LINE_BYTES;
      for (let i = 0; i < rows; i++) {
        const name = batch.licenseNames[i] as string;
        let licence = licences.get(name);
        if (licence === undefined) {
          if (licences.size >= MAX_CACHED_BUYERS) licences.clear();
          licence = encode(`${csvRecord([cell(name, batch.ids[i] as number)])},`);
          licences.set(name, licence);
        }
        names[i] = licence;
        size += (batch.people[i] as Buffer).length + licence.length;
      }
      const chunk = Buffer.allocUnsafe(size);
      let at = 0;
      for (let i = 0; i < rows; i++) {
        at += (batch.people[i] as Buffer).copy(chunk, at);
        at += (names[i] as Buffer).copy(chunk, at);
        at += chunk.write(jstLine(batch.paidAt[i] as string), at, 'latin1');
      }
      await write(chunk);
      count += batch.ids.length;
      if (count - reported >= PROGRESS_EVERY || Date.now() - beat >= HEARTBEAT_MS) {
        reported = count;
        beat = Date.now();
        await em.execute('update exports set row_count = ?, heartbeat_at = now() where id = ?', [count, exportId]);
      }
    }
    out.end();
    await stored;
  } catch (error) {
    // The store discards what it was given: a temp file removed, a multipart upload aborted.
    out.destroy(error instanceof Error ? error : new Error(String(error)));
    await stored.catch(() => undefined);
    if (error instanceof AppError) {
      // The sales themselves refuse the file (a character CP932 cannot hold): no retry can help.
      await em.execute("update exports set state = 'failed', error = ?, finished_at = now() where id = ?", [
        error.message,
        exportId,
      ]);
      return 'done';
    }
    await recordFailedAttempt(em, exportId, error, log);
    throw error;
  }
  await em.execute(
    `update exports set state = 'done', row_count = ?, total_rows = ?, file_name = ?, sha256 = ?, finished_at = now(),
       last_error = null, last_error_at = null where id = ?`,
    [count, count, key, hash.digest('hex'), exportId],
  );
  return 'done';
}

/**
 * An attempt failed for a reason a later one may not meet (the store unwritable, PostgreSQL gone): the
 * export waits for BullMQ's retry as `queued`, with the reason and time, in a statement of its own
 * (the caller rethrows). It is not `failed`: 再実行 would race the retry, and the screen would say the
 * export is over. Only the job given up (workers/index.ts → markExportFailed) fails it.
 */
async function recordFailedAttempt(em: Em, exportId: string, error: unknown, log?: Logger) {
  const reason = `CSVを作成できませんでした: ${error instanceof Error ? error.message : String(error)}`.slice(0, 2000);
  log?.warn('export attempt failed; the job will be retried', { export: exportId, error: reason });
  try {
    await em.fork().execute(
      `update exports set state = 'queued', last_error = ?, last_error_at = now(), heartbeat_at = null
         where id = ? and state = 'running'`,
      [reason, exportId],
    );
  } catch (recordError) {
    log?.warn('could not record the failed export attempt', { export: exportId, error: String(recordError) });
  }
}

/** What the sweeper hands a module: the transaction, the file store, and a way to act after commit. */
interface SweepContextOfExports {
  em: Em;
  files: FileStore;
  graceMs: number;
  log: Logger;
  afterCommit(work: () => Promise<unknown>): Promise<void>;
}

/**
 * The job of an export failed for good (its tries spent, or stalled past BullMQ's limit): a queued or
 * running export becomes failed with a Japanese reason, and its unfinished writes go (after commit).
 */
export async function markExportFailed(
  ctx: Pick<SweepContextOfExports, 'em' | 'files' | 'afterCommit'>,
  exportId: string,
  reason = EXPORT_GAVE_UP,
): Promise<void> {
  await ctx.em.execute(
    "update exports set state = 'failed', error = ?, finished_at = now() where id = ? and state in ('queued', 'running')",
    [reason, exportId],
  );
  await ctx.afterCommit(() => discardUnfinished(ctx.files, (id) => id === exportId));
}

/** Unfinished writes of exports (temp files, multipart uploads) that `whose` names, discarded. */
async function discardUnfinished(files: FileStore, whose: (exportId: string, modifiedAt: number) => boolean): Promise<number> {
  let removed = 0;
  for await (const write of files.incomplete(EXPORTS)) {
    const id = EXPORT_KEY.exec(write.key)?.[1];
    if (id && whose(id, write.modifiedAt.getTime())) {
      await write.discard();
      removed++;
    }
  }
  return removed;
}

/**
 * The sales module's part of a sweep: a running export whose job has not said it is alive for
 * `graceMs` is failed (its worker died); unfinished writes of exports not running in a live job are
 * discarded (after the sweep commits); exports still queued after `graceMs` need their
 * ExportRequested delivered (again).
 */
export async function sweepExports(ctx: SweepContextOfExports) {
  const stale = await ctx.em.execute<{ id: string }[]>(
    `update exports set state = 'failed', error = ?, finished_at = now()
     where state = 'running' and coalesce(heartbeat_at, started_at, created_at) < now() - (? * interval '1 millisecond')
     returning id`,
    [EXPORT_INTERRUPTED, ctx.graceMs],
  );
  if (stale.length) ctx.log.warn('exports without a live job marked failed', { exports: stale.map((r) => r.id) });
  const running = await ctx.em.execute<{ id: string }[]>("select id from exports where state = 'running'");
  const live = new Set(running.map((r) => r.id));
  const failedNow = new Set(stale.map((r) => r.id));
  // A write of an export not running: left by a dead job. One younger than the grace period may belong
  // to a build that started after the query above, unless its export was just failed.
  const settled = Date.now() - ctx.graceMs;
  await ctx.afterCommit(async () => {
    const removed = await discardUnfinished(
      ctx.files,
      (id, modifiedAt) => failedNow.has(id) || (!live.has(id) && modifiedAt < settled),
    );
    if (removed) ctx.log.info('unfinished files of stopped exports discarded', { removed });
  });
  const queued = await ctx.em.execute<{ id: string }[]>(
    `select id from exports where state = 'queued' and created_at < now() - (? * interval '1 millisecond')
     order by created_at limit 100`,
    [ctx.graceMs],
  );
  return queued.map((r) => ({ name: 'ExportRequested' as const, payload: { exportId: r.id } }));
}

/** POST /api/exports/{id}/retry: a failed export is queued again (a batch keeps its frozen sales), audited. */
export async function retryExport(orm: Orm, actor: Actor, id: string) {
  return transact(orm.em as Em, async (tx) => {
    const row = await tx.findOne(Export, { id }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    if (!row) throw new AppError('not_found', EXPORT_NOT_FOUND);
    if (row.state !== 'failed') throw new AppError('conflict', '再実行できるのは失敗したエクスポートだけです。');
    const before = { state: row.state, error: row.error };
    Object.assign(row, {
      state: 'queued',
      error: null,
      lastError: null,
      lastErrorAt: null,
      rowCount: 0,
      finishedAt: null,
      heartbeatAt: null,
      startedAt: null,
    });
    recordEvent(tx, 'ExportRequested', { exportId: row.id });
    recordAudit(tx, actor, {
      action: 'sale.export.retry',
      targetType: 'export',
      targetId: row.id,
      before,
      after: { state: 'queued' },
    });
    return exportDto(row);
  });
}
