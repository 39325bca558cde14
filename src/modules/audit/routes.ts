import { Hono } from 'hono';
import type { AppEnv } from '../../http/context.ts';
import { requireAdmin } from '../../http/guards.ts';
import { parseInput } from '../../http/validate.ts';
import type { AuditVocabulary } from './labels.ts';
import { AuditLogQuery } from './schemas.ts';
import { auditLogOptions, listAuditLogs } from './service.ts';

/** The audit module's API, mounted under /api: who changed what, for administrators, in `words`. */
export const auditRoutes = (words: AuditVocabulary) =>
  new Hono<AppEnv>()
    .get('/audit-logs', requireAdmin, async (c) =>
      c.json(await listAuditLogs(c.var.deps.orm, parseInput(AuditLogQuery, c.req.query()), words)),
    )
    .get('/audit-logs/options', requireAdmin, async (c) => c.json(await auditLogOptions(c.var.deps.orm, words)));
