import { createHash, randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { finished } from 'node:stream/promises';
import { LockMode } from '@mikro-orm/core';
import iconv from 'iconv-lite';
import type { Em, Orm } from '../../db/orm.ts';
import { recordEvent, transact } from '../../events/outbox.ts';
import { AppError, validationError } from '../../http/errors.ts';
import {
  CP932,
  contentDisposition,
  csvHeader,
  csvLines,
  downloadNames,
  replaceUnmappable,
  toCp932Forms,
  unmappableIn,
} from '../../lib/csv.ts';
import type { Logger } from '../../lib/logger.ts';
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
const BATCH = 5_000;
const PROGRESS_EVERY = 20_000;
const EXPORT_NOT_FOUND = 'エラー: エクスポートが見つかりませんでした。';
/** How often a running export's job says it is alive (the sweeper fails one that stops). */
const HEARTBEAT_MS = 1_000;
export const EXPORT_INTERRUPTED =
  'CSVの作成が途中で止まりました（処理していたワーカーが停止しました）。「再実行」で作り直してください。';
export const EXPORT_GAVE_UP = 'CSVの作成を何度か試みましたが完了できませんでした。「再実行」で作り直してください。';

/** A temp file of an export: `.<exportId>.<pid>.<random>.tmp` in the export directory. */
const TEMP_FILE = /^\.([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\..*\.tmp$/;

export const exportDir = (dataDir: string) => join(dataDir, 'exports');

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

interface ExportRow {
  id: number;
  user_id: string | null;
  buyer_email: string;
  buyer_last_name: string;
  buyer_first_name: string;
  buyer_affiliation: number | null;
  buyer_affiliation_name: string;
  buyer_affiliation_other: string | null;
  license_name: string;
  paid_at: string;
}

// PostgreSQL writes 購入日時 in Japan time itself: no Date per row in Node.
const ROW_COLUMNS = `s.id, s.user_id, s.buyer_email, s.buyer_last_name, s.buyer_first_name, s.buyer_affiliation,
  s.buyer_affiliation_name, s.buyer_affiliation_other, s.license_name,
  to_char(s.paid_at at time zone 'Asia/Tokyo', 'YYYY/MM/DD HH24:MI:SS') as paid_at`;

type ExportSource = { batchId: string } | { filter: SalesFilter };

const ROW_FIELDS = [
  'id',
  'user_id',
  'buyer_email',
  'buyer_last_name',
  'buyer_first_name',
  'buyer_affiliation',
  'buyer_affiliation_name',
  'buyer_affiliation_other',
  'license_name',
  'paid_at',
] as const;
type RowTuple = [number, string | null, string, string, string, number | null, string, string | null, string, string];

/**
 * One keyset batch of an export's rows after `afterId`: a batch's frozen sales, or the sales its
 * filters match. PostgreSQL hands the whole batch over as one JSON array of arrays: one string to
 * decode and one JSON.parse per 5,000 rows, instead of ten text fields decoded per row.
 */
async function rowsAfter(em: Em, source: ExportSource, afterId: number): Promise<ExportRow[]> {
  const page =
    'batchId' in source
      ? {
          sql: `select ${ROW_COLUMNS} from export_sales e join sales s on s.id = e.sale_id
                where e.export_id = ? and s.id > ? order by s.id limit ${BATCH}`,
          params: [source.batchId, afterId],
        }
      : (() => {
          const where = salesWhere({ ...source.filter, exportable: true });
          return {
            sql: `select ${ROW_COLUMNS} from sales s ${where.sql ? `${where.sql} and` : 'where'} s.id > ? order by s.id limit ${BATCH}`,
            params: [...where.params, afterId],
          };
        })();
  const [result] = await em.execute<{ rows: string }[]>(
    `select coalesce(json_agg(json_build_array(${ROW_FIELDS.map((f) => `page.${f}`).join(', ')}) order by page.id), '[]')::text as rows
     from (${page.sql}) page`,
    page.params,
  );
  const tuples = JSON.parse(result?.rows ?? '[]') as RowTuple[];
  return tuples.map((t) => ({
    id: t[0],
    user_id: t[1],
    buyer_email: t[2],
    buyer_last_name: t[3],
    buyer_first_name: t[4],
    buyer_affiliation: t[5],
    buyer_affiliation_name: t[6],
    buyer_affiliation_other: t[7],
    license_name: t[8],
    paid_at: t[9],
  }));
}

interface RowBatch {
  rows: ExportRow[];
  buyers: Map<string, Buyer>;
}

/** A batch of rows with their members' current details. */
async function batchAfter(em: Em, source: ExportSource, afterId: number): Promise<RowBatch> {
  const rows = await rowsAfter(em, source, afterId);
  const buyers = await currentBuyers(
    em,
    rows.flatMap((r) => (r.user_id ? [r.user_id] : [])),
  );
  return { rows, buyers };
}

/**
 * One CSV record of the training system: the member's current details while the account exists,
 * the purchase-time snapshot once it is deleted. (csv-stringify's escape_formulas makes formula cells text.)
 */
function record(sale: ExportRow, buyer: Buyer | undefined, groupName: string): string[] {
  const affiliation = buyer ? buyer.affiliation : sale.buyer_affiliation;
  return [
    buyer?.email ?? sale.buyer_email,
    buyer?.lastName ?? sale.buyer_last_name,
    buyer?.firstName ?? sale.buyer_first_name,
    '日本語',
    groupName,
    affiliation ? (AFFILIATIONS[affiliation as keyof typeof AFFILIATIONS] ?? '') : '',
    buyer
      ? combinedAffiliationName(buyer.affiliation, buyer.affiliationName, buyer.affiliationOther)
      : combinedAffiliationName(sale.buyer_affiliation, sale.buyer_affiliation_name, sale.buyer_affiliation_other),
    sale.license_name,
    sale.paid_at,
  ];
}

/**
 * The export's records, batch by batch. The next batch is already being read (by PostgreSQL, on
 * another connection) while this one is written: reading and writing overlap.
 */
async function* records(em: Em, source: ExportSource, groupName: string): AsyncGenerator<{ saleId: number; cells: string[] }[]> {
  let next: Promise<RowBatch> | null = batchAfter(em, source, 0);
  while (next) {
    const { rows, buyers }: RowBatch = await next;
    const lastId = rows.at(-1)?.id;
    next = rows.length === BATCH && lastId !== undefined ? batchAfter(em, source, lastId) : null;
    // A consumer that stops early must not leave the prefetch's failure unhandled.
    next?.catch(() => undefined);
    if (rows.length) {
      yield rows.map((sale) => ({
        saleId: sale.id,
        cells: record(sale, sale.user_id ? buyers.get(sale.user_id) : undefined, groupName),
      }));
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
  for await (const batch of records(em, source, groupName)) {
    for (const { saleId, cells } of batch) {
      cells.forEach((text, column) => {
        const characters = unmappableIn(text);
        if (!characters.length) return;
        total++;
        if (problems.length < limit) {
          problems.push({ sale_id: saleId, field: FIELD_OF_COLUMN[column] ?? EXPORT_HEADER[column] ?? '', text, characters });
        }
      });
    }
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

/** A finished export's file, byte-identical every time; each download is audited. */
export async function openDownload(orm: Orm, actor: Actor, dataDir: string, id: string) {
  const row = await getExport(orm, id);
  if (row.state !== 'done' || !row.fileName) throw new AppError('conflict', 'エクスポートはまだ完了していません。');
  const path = join(exportDir(dataDir), row.fileName);
  const info = await stat(path).catch(() => null);
  if (!info) throw new AppError('not_found', 'エクスポートのファイルが見つかりませんでした。もう一度作成してください。');
  await transact(orm.em as Em, async (tx) => {
    recordAudit(tx, actor, {
      action: 'sale.export.download',
      targetType: 'export',
      targetId: row.id,
      after: { sha256: row.sha256 },
    });
  });
  return {
    path,
    size: info.size,
    contentType: `text/csv; charset=${row.encoding === 'shift_jis' ? 'Shift_JIS' : 'UTF-8'}`,
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
 * Builds the CSV of an export: rows read in keyset batches (memory stays flat), the members' current
 * details looked up per batch, written one CSV chunk per batch in csv-stringify's dialect (comma, CRLF,
 * formula cells as text; lib/csv.ts) into a temp file — UTF-8 with BOM, or CP932 — hashed, then
 * renamed into place; progress (rows written) is saved as it goes.
 * A finished export is not built again; a failed or interrupted one is rebuilt from its frozen set.
 */
export async function buildExport(em: Em, dataDir: string, groupName: string, exportId: string): Promise<'done' | 'skipped'> {
  const row = await em.findOne(Export, { id: exportId });
  if (!row || row.state === 'done') return 'skipped';
  const source = row.batch ? { batchId: row.id } : { filter: row.filters as SalesFilter };
  if (!row.batch) {
    const where = salesWhere({ ...(row.filters as SalesFilter), exportable: true });
    const [count] = await em.execute<{ n: number }[]>(`select count(*)::int as n from sales s ${where.sql}`, where.params);
    row.totalRows = count?.n ?? 0;
  }
  await em.execute(
    `update exports set state = 'running', error = null, row_count = 0, total_rows = ?, started_at = now(),
       heartbeat_at = now(), finished_at = null where id = ?`,
    [row.totalRows ?? null, exportId],
  );
  const dir = exportDir(dataDir);
  await mkdir(dir, { recursive: true });
  const fileName = `${exportId}.csv`;
  // Named by the export, so a failure and the sweeper can find it (TEMP_FILE).
  const temp = join(dir, `.${exportId}.${process.pid}.${randomUUID()}.tmp`);
  const cp932 = row.encoding === 'shift_jis';
  const replace = row.replaceUnmappable;
  const hash = createHash('sha256');
  const out = createWriteStream(temp);
  const failed = new Promise<never>((_, reject) => out.once('error', reject));
  failed.catch(() => undefined);
  /** Hashes and writes one chunk, waiting while the file is behind (memory stays flat). */
  const write = async (text: string) => {
    const bytes = cp932 ? iconv.encode(text, CP932) : Buffer.from(text, 'utf8');
    hash.update(bytes);
    if (!out.write(bytes)) await Promise.race([once(out, 'drain'), failed]);
  };
  let count = 0;
  let reported = 0;
  let beat = Date.now();
  try {
    await write(csvHeader(EXPORT_HEADER, !cp932));
    for await (const batch of records(em, source, groupName)) {
      const lines = batch.map(({ saleId, cells }) => {
        if (!cp932) return cells;
        if (replace) return cells.map(replaceUnmappable);
        for (const text of cells) {
          const unmappable = unmappableIn(text);
          if (unmappable.length) {
            throw new AppError(
              'validation',
              `注文番号${saleId}に Shift_JIS（CP932）で表せない文字「${unmappable.join('')}」があります。UTF-8で作成するか、〓に置き換えて作成してください。`,
            );
          }
        }
        return cells.map(toCp932Forms);
      });
      // One CSV chunk per batch (csv-stringify's dialect, see lib/csv.ts).
      await write(csvLines(lines));
      count += lines.length;
      if (count - reported >= PROGRESS_EVERY || Date.now() - beat >= HEARTBEAT_MS) {
        reported = count;
        beat = Date.now();
        await em.execute('update exports set row_count = ?, heartbeat_at = now() where id = ?', [count, exportId]);
      }
    }
    out.end();
    await Promise.race([finished(out), failed]);
    await rename(temp, join(dir, fileName));
  } catch (error) {
    out.destroy();
    await rm(temp, { force: true });
    const message =
      error instanceof AppError
        ? error.message
        : `CSVを作成できませんでした: ${error instanceof Error ? error.message : String(error)}`;
    await em.execute("update exports set state = 'failed', error = ?, finished_at = now() where id = ?", [message, exportId]);
    if (error instanceof AppError) return 'done';
    throw error;
  }
  await em.execute(
    "update exports set state = 'done', row_count = ?, total_rows = ?, file_name = ?, sha256 = ?, finished_at = now() where id = ?",
    [count, count, fileName, hash.digest('hex'), exportId],
  );
  return 'done';
}

/**
 * The job of an export failed for good (its tries spent, or stalled past BullMQ's limit): a queued or
 * running export becomes failed with a Japanese reason, and its temp files go.
 */
export async function markExportFailed(em: Em, dataDir: string, exportId: string, reason = EXPORT_GAVE_UP): Promise<void> {
  await em.execute(
    "update exports set state = 'failed', error = ?, finished_at = now() where id = ? and state in ('queued', 'running')",
    [reason, exportId],
  );
  await removeTempFiles(dataDir, (id) => id === exportId);
}

async function removeTempFiles(dataDir: string, whose: (exportId: string, modifiedAt: number) => boolean): Promise<number> {
  const dir = exportDir(dataDir);
  const names = await readdir(dir).catch(() => [] as string[]);
  let removed = 0;
  for (const name of names) {
    const id = TEMP_FILE.exec(name)?.[1];
    if (!id) continue;
    const info = await stat(join(dir, name)).catch(() => null);
    if (info && whose(id, info.mtimeMs)) {
      await rm(join(dir, name), { force: true });
      removed++;
    }
  }
  return removed;
}

/**
 * The sales module's part of a sweep: a running export whose job has not said it is alive for
 * `graceMs` is failed (its worker died); temp files of exports not running in a live job are removed;
 * exports still queued after `graceMs` need their ExportRequested delivered (again).
 */
export async function sweepExports(ctx: { em: Em; dataDir: string; graceMs: number; log: Logger }) {
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
  // A file of an export not running: left by a dead job. One younger than the grace period may belong
  // to a build that started after the query above, unless its export was just failed.
  const settled = Date.now() - ctx.graceMs;
  const removed = await removeTempFiles(
    ctx.dataDir,
    (id, modifiedAt) => failedNow.has(id) || (!live.has(id) && modifiedAt < settled),
  );
  if (removed) ctx.log.info('temp files of stopped exports removed', { removed });
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
    Object.assign(row, { state: 'queued', error: null, rowCount: 0, finishedAt: null, heartbeatAt: null, startedAt: null });
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
