import * as v from 'valibot';
import { operation, pageEntries, timestamp } from '../../http/openapi.ts';
import { AuditExportQuery, AuditLogQuery } from './schemas.ts';

/** One entry of the audit log (auditLogDto): who did what to which record, and what changed. */
const AuditEntry = v.pipe(
  v.object({
    id: v.string(),
    actor_id: v.nullable(v.string()),
    actor_email: v.nullable(v.string()),
    action: v.string(),
    action_label: v.string(),
    target_type: v.string(),
    target_label: v.string(),
    target_id: v.string(),
    target_name: v.pipe(
      v.string(),
      v.description('対象を人が読める形で（会員の氏名とメールアドレス、注文番号、ライセンス名など）。内部のIDだけにはならない。'),
    ),
    changes: v.array(
      v.object({ field: v.string(), label: v.string(), before: v.nullable(v.string()), after: v.nullable(v.string()) }),
    ),
    sales: v.nullable(
      v.object({ count: v.number(), first_ids: v.array(v.number()), first_names: v.array(v.string()), more: v.boolean() }),
    ),
    created_at: timestamp(),
  }),
  v.metadata({ ref: 'AuditEntry' }),
);

const TAGS = ['操作履歴'];

export const auditDocs = {
  list: operation('get', {
    summary: '操作履歴',
    tags: TAGS,
    access: 'admin',
    permission: 'audit:read',
    query: AuditLogQuery,
    answers: { 200: v.object({ audit_logs: v.array(AuditEntry), ...pageEntries, total_capped: v.boolean() }) },
  }),
  exportCsv: operation('get', {
    summary: '操作履歴の CSV',
    tags: TAGS,
    access: 'admin',
    permission: 'audit:export',
    query: AuditExportQuery,
    answers: { 200: { media: 'text/csv', description: 'CSV ファイル' } },
    errors: [429],
  }),
  options: operation('get', {
    summary: '操作履歴の絞り込みの選択肢',
    tags: TAGS,
    access: 'admin',
    permission: 'audit:read',
    answers: {
      200: v.object({
        actions: v.array(v.object({ action: v.string(), label: v.string() })),
        target_types: v.array(v.object({ target_type: v.string(), label: v.string() })),
      }),
    },
  }),
};
