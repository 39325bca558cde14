import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { stringify } from 'csv-stringify';
import iconv from 'iconv-lite';
import type { Em, Orm } from '../../db/orm.ts';
import { recordEvent, transact } from '../../events/outbox.ts';
import { AppError } from '../../http/errors.ts';
import { AFFILIATIONS, combinedAffiliationName } from '../accounts/index.ts';
import { type Actor, recordAudit } from '../audit/index.ts';
import { Export } from './entities/export.entity.ts';
import { type SalesFilter, salesWhere } from './service.ts';

export const EXPORT_HEADER = ['メールアドレス', '姓', '名', '言語', 'グループ', '所属', '所属名', 'ライセンス名', '購入日時'];
export type ExportEncoding = 'utf-8' | 'shift_jis';
const BATCH = 1_000;

export const exportDir = (dataDir: string) => join(dataDir, 'exports');

export function exportDto(row: Export) {
  return {
    id: row.id,
    state: row.state,
    row_count: row.rowCount,
    encoding: row.encoding,
    filters: row.filters,
    error: row.error,
    created_at: row.createdAt.toISOString(),
    finished_at: row.finishedAt ? row.finishedAt.toISOString() : null,
    download_url: row.state === 'done' ? `/api/exports/${row.id}/download` : null,
  };
}

/** Queues a training-system CSV of the sales matching `filter` (status 0 or 1, not refunded). */
export async function requestExport(orm: Orm, actor: Actor, filter: SalesFilter, encoding: ExportEncoding) {
  const row = await transact(orm.em as Em, async (tx) => {
    const created = tx.create(Export, {
      id: randomUUID(),
      requestedBy: actor.id,
      filters: { ...filter },
      encoding,
      state: 'queued',
      rowCount: 0,
      createdAt: new Date(),
    });
    recordEvent(tx, 'ExportRequested', { exportId: created.id });
    recordAudit(tx, actor, {
      action: 'sale.export',
      targetType: 'export',
      targetId: created.id,
      after: { filters: filter, encoding },
    });
    return created;
  });
  return exportDto(row);
}

export async function getExport(orm: Orm, id: string) {
  const row = await orm.em.fork().findOne(Export, { id });
  if (!row) throw new AppError('not_found', 'エラー: エクスポートが見つかりませんでした。');
  return row;
}

const jst = new Intl.DateTimeFormat('sv-SE', { timeZone: 'Asia/Tokyo', dateStyle: 'short', timeStyle: 'medium' });

interface ExportRow {
  id: number;
  buyer_email: string;
  buyer_last_name: string;
  buyer_first_name: string;
  buyer_affiliation: number | null;
  buyer_affiliation_name: string;
  buyer_affiliation_other: string | null;
  license_name: string;
  paid_at: Date | string;
}

/**
 * Builds the CSV of an export: rows read from the database in keyset batches (memory stays flat),
 * streamed through csv-stringify (comma, CRLF) into a temp file, UTF-8 with BOM or Shift_JIS, then
 * renamed into place. Running it again after it is done does nothing.
 */
export async function buildExport(em: Em, dataDir: string, groupName: string, exportId: string): Promise<'done' | 'skipped'> {
  const row = await em.findOne(Export, { id: exportId });
  if (!row || row.state === 'done') return 'skipped';
  await em.execute("update exports set state = 'running', error = null where id = ?", [exportId]);
  const dir = exportDir(dataDir);
  await mkdir(dir, { recursive: true });
  const fileName = `${exportId}.csv`;
  const temp = join(dir, `.${fileName}.${process.pid}.tmp`);
  const filter = row.filters as SalesFilter;
  const where = salesWhere({ ...filter, exportable: true });
  let count = 0;
  async function* rows() {
    let lastId = 0;
    for (;;) {
      const batch = await em.execute<ExportRow[]>(
        `select s.id, s.buyer_email, s.buyer_last_name, s.buyer_first_name, s.buyer_affiliation, s.buyer_affiliation_name,
                s.buyer_affiliation_other, s.license_name, s.paid_at
         from sales s ${where.sql ? `${where.sql} and` : 'where'} s.id > ? order by s.id limit ${BATCH}`,
        [...where.params, lastId],
      );
      for (const sale of batch) {
        count++;
        yield [
          sale.buyer_email,
          sale.buyer_last_name,
          sale.buyer_first_name,
          '日本語',
          groupName,
          sale.buyer_affiliation ? (AFFILIATIONS[sale.buyer_affiliation as keyof typeof AFFILIATIONS] ?? '') : '',
          combinedAffiliationName(sale.buyer_affiliation, sale.buyer_affiliation_name, sale.buyer_affiliation_other),
          sale.license_name,
          jst.format(new Date(sale.paid_at)).replace(/-/g, '/'),
        ];
      }
      if (batch.length < BATCH) return;
      lastId = batch.at(-1)?.id ?? lastId;
    }
  }
  const encode =
    row.encoding === 'shift_jis'
      ? new Transform({ transform: (chunk: Buffer, _enc, done) => done(null, iconv.encode(chunk.toString('utf8'), 'Shift_JIS')) })
      : new Transform({ transform: (chunk, _enc, done) => done(null, chunk) });
  try {
    await pipeline(
      rows(),
      stringify({
        header: true,
        columns: EXPORT_HEADER,
        record_delimiter: 'windows',
        bom: row.encoding !== 'shift_jis',
        quoted_string: false,
      }),
      encode,
      createWriteStream(temp),
    );
    await rename(temp, join(dir, fileName));
  } catch (error) {
    await rm(temp, { force: true });
    await em.execute("update exports set state = 'failed', error = ?, finished_at = now() where id = ?", [
      String(error),
      exportId,
    ]);
    throw error;
  }
  await em.execute("update exports set state = 'done', row_count = ?, file_name = ?, finished_at = now() where id = ?", [
    count,
    fileName,
    exportId,
  ]);
  return 'done';
}
