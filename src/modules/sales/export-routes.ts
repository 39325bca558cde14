import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { Hono } from 'hono';
import * as v from 'valibot';
import type { AppEnv } from '../../http/context.ts';
import { AppError } from '../../http/errors.ts';
import { requireAdmin, signedInUser } from '../../http/guards.ts';
import { jsonInput } from '../../http/validate.ts';
import { exportDir, exportDto, getExport, requestExport } from './export.ts';
import { SalesQuery, toFilter } from './schemas.ts';

const ExportInput = v.object({
  ...SalesQuery.entries,
  encoding: v.optional(v.picklist(['utf-8', 'shift_jis'], '文字コードは utf-8 か shift_jis を指定してください。'), 'utf-8'),
});

/** Export ids are uuids: `/exports/<word>` routes can be added beside `/exports/:id` in any order. */
const EXPORT = ':id{[0-9a-f-]+}';

const exportId = (raw: string) => {
  if (!/^[0-9a-f-]{36}$/.test(raw)) throw new AppError('not_found', 'エラー: エクスポートが見つかりませんでした。');
  return raw;
};

/** CSV exports for the training-management system: queued (202), then polled, then downloaded. */
export const exportRoutes = new Hono<AppEnv>()
  .post('/exports', requireAdmin, async (c) => {
    const input = await jsonInput(c, ExportInput);
    const user = signedInUser(c);
    const created = await requestExport(c.var.deps.orm, { id: user.id, email: user.email }, toFilter(input), input.encoding);
    return c.json({ export: created }, 202);
  })
  .get(`/exports/${EXPORT}`, requireAdmin, async (c) =>
    c.json({ export: exportDto(await getExport(c.var.deps.orm, exportId(c.req.param('id')))) }),
  )
  .get(`/exports/${EXPORT}/download`, requireAdmin, async (c) => {
    const row = await getExport(c.var.deps.orm, exportId(c.req.param('id')));
    if (row.state !== 'done' || !row.fileName) throw new AppError('conflict', 'エクスポートはまだ完了していません。');
    const path = join(exportDir(c.var.deps.env.dataDir), row.fileName);
    const info = await stat(path).catch(() => null);
    if (!info) throw new AppError('not_found', 'エクスポートのファイルが見つかりませんでした。もう一度作成してください。');
    c.header('Content-Type', `text/csv; charset=${row.encoding === 'shift_jis' ? 'Shift_JIS' : 'UTF-8'}`);
    c.header('Content-Disposition', 'attachment; filename="data.csv"');
    c.header('Content-Length', String(info.size));
    return c.body(Readable.toWeb(createReadStream(path)) as ReadableStream);
  });
