// The export's requests: its preflight, a plain export or a batch, history, download, 登録済み
// (complete) and 再実行 (retry). The worker builds the file (build.ts).
import { randomUUID } from 'node:crypto';
import { LockMode } from '@mikro-orm/core';
import { countAll, db, now } from '../../../db/kysely.ts';
import type { Em, Orm } from '../../../db/orm.ts';
import { recordEvent, transact } from '../../../events/outbox.ts';
import { AppError, validationError } from '../../../http/errors.ts';
import { contentDisposition, downloadNames, unmappableIn } from '../../../lib/csv.ts';
import type { Logger } from '../../../lib/logger.ts';
import type { FileStore } from '../../../storage/file-store.ts';
import { type Actor, recordAudit } from '../../audit/index.ts';
import { findLicenseForSale } from '../../licenses/index.ts';
import { Export } from '../entities/export.entity.ts';
import { SaleStatus } from '../entities/sale.entity.ts';
import { resolveSearch, type SalesFilter, salesFilter } from '../sales-filter.ts';
import { countChanged, recordStatusMove } from '../status-moves.ts';
import { keyOfExportFile } from './build.ts';
import { EXPORT_HEADER, type ExportEncoding, exportContentType, FIELD_OF_COLUMN, jstCell } from './csv.ts';
import { type ExportSource, records, spanOf } from './query.ts';

const EXPORT_NOT_FOUND = 'エクスポートが見つかりませんでした。';

export function exportDto(row: Export, openCount?: number) {
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
    error: row.error ?? null,
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
    worker_instance: row.workerInstance ?? null,
    // A batch's sales still 処理中 (null when not counted): with none, 「登録済みにする」 has nothing to do.
    open_count: openCount ?? null,
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
    const found = await findUnmappable(
      em,
      { filter: await resolveSearch(em, request.batch ? { ...filter, status: SaleStatus.AwaitingExport } : filter) },
      groupName,
      20,
    );
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
    if (request.batch) moved = await freezeBatch(tx, created, filter, actor, request.expectedCount);
    recordEvent(tx, 'ExportRequested', { exportId: created.id });
    recordAudit(tx, actor, {
      action: request.batch ? 'sale.export.batch' : 'sale.export',
      targetType: 'export',
      targetId: created.id,
      after: {
        // The licence by its name, as the administrator chose it (not its id).
        filters: license ? { ...filter, licenseId: undefined, license: license.name } : filter,
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

/** A batch export's sales move to 処理中 with it, in its transaction: their ids, sorted (409 when the confirmed count changed). */
async function freezeBatch(tx: Em, created: Export, filter: SalesFilter, actor: Actor, expectedCount?: number) {
  await tx.flush();
  const where = salesFilter(await resolveSearch(tx, { ...filter, status: SaleStatus.AwaitingExport }));
  const frozen = await db(tx)
    .with('moved', (q) =>
      q
        .updateTable('sales as s')
        .set({ status: SaleStatus.InProgress, batch_id: created.id, updated_at: now() })
        .where(where)
        .where('s.refunded_at', 'is', null)
        .where('s.batch_id', 'is', null)
        .returning('s.id'),
    )
    .insertInto('export_sales')
    .columns(['export_id', 'sale_id'])
    .expression((eb) => eb.selectFrom('moved').select([eb.cast<string>(eb.val(created.id), 'uuid').as('export_id'), 'id']))
    .returning('sale_id')
    .execute();
  if (expectedCount !== undefined && frozen.length !== expectedCount) throw countChanged(frozen.length, expectedCount);
  if (frozen.length === 0) throw validationError({ batch: ['この条件に「出力待ち」の売上はありません。'] });
  created.totalRows = frozen.length;
  const saleIds = frozen.map((r) => r.sale_id).sort((a, b) => a - b);
  await recordStatusMove(tx, { from: SaleStatus.AwaitingExport, to: SaleStatus.InProgress, actorId: actor.id, saleIds });
  return saleIds;
}

export async function getExport(orm: Orm, id: string) {
  const row = await orm.em.fork().findOne(Export, { id });
  if (!row) throw new AppError('not_found', EXPORT_NOT_FOUND);
  return row;
}

/** The export history, newest first. */
export async function listExports(orm: Orm, page: number, perPage: number) {
  const em = orm.em.fork() as Em;
  const [rows, total] = await em.findAndCount(
    Export,
    {},
    { orderBy: { createdAt: 'desc', id: 'desc' }, limit: perPage, offset: (page - 1) * perPage },
  );
  const open = await openCounts(
    em,
    rows.filter((row) => row.batch && !row.completedAt).map((row) => row.id),
  );
  return {
    exports: rows.map((row) => exportDto(row, row.batch ? (open.get(row.id) ?? 0) : undefined)),
    total,
    page,
    per_page: perPage,
  };
}

/** How many sales of each open batch are still 処理中 (through sales_batch_id_index). */
async function openCounts(em: Em, batchIds: string[]): Promise<Map<string, number>> {
  if (!batchIds.length) return new Map();
  const rows = await db(em)
    .selectFrom('sales')
    .select((eb) => ['batch_id', countAll(eb).as('n')])
    .where('batch_id', 'in', batchIds)
    .where('status', '=', SaleStatus.InProgress)
    .groupBy('batch_id')
    .execute();
  return new Map(rows.map((row) => [row.batch_id as string, row.n]));
}

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
    const moved = await db(tx)
      .updateTable('sales')
      .set({ status: SaleStatus.Registered, batch_id: null, updated_at: now() })
      .where('batch_id', '=', id)
      .where('status', '=', SaleStatus.InProgress)
      .where('refunded_at', 'is', null)
      .returning('id')
      .execute();
    const saleIds = moved.map((r) => r.id).sort((a, b) => a - b);
    if (saleIds.length) {
      await recordStatusMove(tx, { from: SaleStatus.InProgress, to: SaleStatus.Registered, actorId: actor.id, saleIds });
    }
    row.completedAt = new Date();
    row.completedBy = actor.email;
    recordAudit(tx, actor, {
      action: 'sale.export.complete',
      targetType: 'export',
      targetId: id,
      before: { status: SaleStatus.InProgress, sale_ids: saleIds },
      after: { status: SaleStatus.Registered, sale_ids: saleIds },
    });
    return { export: exportDto(row), moved: saleIds.length };
  });
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
        { text: jstCell(batch.paidAt[i] ?? 0), characters: [] as string[] },
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
  const { problems, total } = await findUnmappable(
    em,
    { filter: await resolveSearch(em, batch ? { ...filter, status: SaleStatus.AwaitingExport } : filter) },
    groupName,
  );
  return { problems, total };
}

function unmappableError(found: { problems: Unmappable[]; total: number }) {
  const first = found.problems
    .slice(0, 3)
    .map((p) => `売上ID ${p.sale_id} の「${p.characters.join('')}」`)
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
