import { Readable } from 'node:stream';
import { Hono } from 'hono';
import { LIMITS } from '../../config/limits.ts';
import type { AppEnv } from '../../http/context.ts';
import { permit, signedInUser } from '../../http/guards.ts';
import { queryInput } from '../../http/validate.ts';
import { auditLogExport } from './export.ts';
import type { AuditVocabulary } from './labels.ts';
import { auditDocs } from './responses.ts';
import { AuditExportQuery, AuditLogQuery } from './schemas.ts';
import { auditLogOptions, listAuditLogs } from './service.ts';

/** The audit module's API, mounted under /api: who changed what, for administrators, in `words`. */
export const auditRoutes = (words: AuditVocabulary) =>
  new Hono<AppEnv>()
    .get('/audit-logs', auditDocs.list, permit('audit:read'), async (c) =>
      c.json(await listAuditLogs(c.var.deps.orm, queryInput(c, AuditLogQuery), words)),
    )
    .get('/audit-logs/export.csv', auditDocs.exportCsv, permit('audit:export'), async (c) => {
      const query = queryInput(c, AuditExportQuery);
      const user = signedInUser(c);
      // Each export reads the whole filtered log and writes an audit entry: a few a minute is plenty.
      await c.var.deps.rateLimit.hit(LIMITS.auditExportsPerAdmin, user.id);
      const file = await auditLogExport(c.var.deps.orm, { id: user.id, email: user.email }, query, words);
      c.header('Content-Type', file.contentType);
      c.header('Content-Disposition', file.disposition);
      return c.body(Readable.toWeb(Readable.from(file.chunks)) as ReadableStream);
    })
    .get('/audit-logs/options', auditDocs.options, permit('audit:read'), async (c) =>
      c.json(await auditLogOptions(c.var.deps.orm, words)),
    );
