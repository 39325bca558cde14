import { Readable } from 'node:stream';
import type { Context } from 'hono';
import { Hono } from 'hono';
import type { AppEnv } from '../../http/context.ts';
import { AppError } from '../../http/errors.ts';
import { permit, signedInUser } from '../../http/guards.ts';
import { jsonInput, queryInput } from '../../http/validate.ts';
import { workersAlive } from '../health/index.ts';
import {
  completeBatch,
  exportDto,
  getExport,
  listExports,
  openDownload,
  preflight,
  requestExport,
  retryExport,
} from './export/request.ts';
import { exportDocs } from './responses.ts';
import { ExportInput, PageQuery, PreflightQuery, toFilter } from './schemas.ts';
import { withOrderNumbers } from './with-order-numbers.ts';

/** Export ids are uuids: `/exports/preflight` and `/exports/:id` never meet, in any mounting order. */
const EXPORT = ':id{[0-9a-f-]+}';

const exportId = (raw: string) => {
  if (!/^[0-9a-f-]{36}$/.test(raw)) throw new AppError('not_found', 'エクスポートが見つかりませんでした。');
  return raw;
};

const actorOf = (c: Context<AppEnv>) => {
  const user = signedInUser(c);
  return { id: user.id, email: user.email };
};

/** CSV exports for the training-management system: queued (202), polled, downloaded again at will; batches completed. */
export const exportRoutes = new Hono<AppEnv>()
  .get('/exports', exportDocs.list, permit('exports:read'), async (c) => {
    const query = queryInput(c, PageQuery);
    const { env } = c.var.deps;
    const [history, alive] = await Promise.all([
      listExports(c.var.deps.orm, query.page, query.per_page),
      workersAlive(c.var.deps),
    ]);
    return c.json({
      ...history,
      group_name: env.exportGroupNameConfigured ? env.exportGroupName : null,
      // Exports are built by a worker: the screen warns while one waits and none is running.
      workers_alive: alive,
    });
  })
  .get('/exports/preflight', exportDocs.preflight, permit('exports:read'), async (c) => {
    const query = queryInput(c, PreflightQuery);
    const found = await preflight(c.var.deps.orm, toFilter(query), query.batch, c.var.deps.env.exportGroupName);
    return c.json({ ...found, problems: await withOrderNumbers(c.var.deps.orm.em.fork(), found.problems) });
  })
  .post('/exports', exportDocs.create, permit('exports:run'), async (c) => {
    const input = await jsonInput(c, ExportInput);
    const created = await requestExport(
      c.var.deps.orm,
      actorOf(c),
      {
        filter: toFilter(input),
        encoding: input.encoding,
        batch: input.batch,
        replaceUnmappable: input.replace_unmappable,
        expectedCount: input.expected_count,
      },
      c.var.deps.env.exportGroupName,
    );
    return c.json({ export: created }, 202);
  })
  .get(`/exports/${EXPORT}`, exportDocs.show, permit('exports:read'), async (c) => {
    const [row, alive] = await Promise.all([getExport(c.var.deps.orm, exportId(c.req.param('id'))), workersAlive(c.var.deps)]);
    return c.json({ export: exportDto(row), workers_alive: alive });
  })
  .post(`/exports/${EXPORT}/complete`, exportDocs.complete, permit('exports:run'), async (c) => {
    const result = await completeBatch(c.var.deps.orm, actorOf(c), exportId(c.req.param('id')));
    return c.json({ ...result, message: `${result.moved.toLocaleString('ja-JP')}件を登録済みにしました。` });
  })
  .post(`/exports/${EXPORT}/retry`, exportDocs.retry, permit('exports:run'), async (c) => {
    const retried = await retryExport(c.var.deps.orm, actorOf(c), exportId(c.req.param('id')));
    return c.json({ export: retried, message: 'エクスポートを再実行します。' }, 202);
  })
  .get(`/exports/${EXPORT}/download`, exportDocs.download, permit('exports:download'), async (c) => {
    const file = await openDownload(c.var.deps.orm, actorOf(c), c.var.deps.files, exportId(c.req.param('id')), c.var.log);
    c.header('Content-Type', file.contentType);
    c.header('Content-Disposition', file.disposition);
    c.header('Content-Length', String(file.size));
    return c.body(Readable.toWeb(file.stream) as ReadableStream);
  });
