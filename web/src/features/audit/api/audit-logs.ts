import useSWR from 'swr';
import type { Answer, Schema } from '../../../lib/api';

export type AuditEntry = Schema<'AuditEntry'>;
/** One changed field of an entry, as the server words it (values are display text; null is nothing). */
export type AuditChange = AuditEntry['changes'][number];

/** The filters the screen keeps in its URL, named as the API takes them. */
export const AUDIT_FILTERS = ['actor', 'action', 'target_type', 'target_id', 'from', 'to'] as const;
export type AuditFilter = (typeof AUDIT_FILTERS)[number];

/** Only the API's own parameters go to the server (a stray one in the URL is not passed on). */
export function auditQuery(params: URLSearchParams): string {
  const query = new URLSearchParams();
  for (const key of [...AUDIT_FILTERS, 'page', 'per_page']) {
    const value = params.get(key);
    if (value) query.set(key, value);
  }
  return query.toString();
}

/** The CSV of every entry the filters in the URL find (GET /api/audit-logs/export.csv), in the chosen encoding. */
export function auditCsvUrl(params: URLSearchParams, encoding: 'utf-8' | 'shift_jis'): string {
  const query = new URLSearchParams();
  for (const key of AUDIT_FILTERS) {
    const value = params.get(key);
    if (value) query.set(key, value);
  }
  query.set('encoding', encoding);
  return `/api/audit-logs/export.csv?${query.toString()}`;
}

export function useAuditLogs(params: URLSearchParams) {
  return useSWR<Answer<'/api/audit-logs'>>(`/api/audit-logs?${auditQuery(params)}`);
}

export function useAuditLogOptions() {
  return useSWR<Answer<'/api/audit-logs/options'>>('/api/audit-logs/options');
}

/** The licence-issue screen showing only the sales an entry moved (all of them, page by page). */
export const movedSalesPath = (entry: Pick<AuditEntry, 'id'>) =>
  `/admin/licenses/issue?${new URLSearchParams({ audit_id: entry.id }).toString()}`;

/** The admin screen of a record, where one exists. A deleted record (or a member who left) has none. */
export function targetPath(entry: Pick<AuditEntry, 'target_type' | 'target_id' | 'action'>): string | null {
  if (/\.(delete|withdraw)$/.test(entry.action)) return null;
  if (entry.target_type === 'user' && /^[0-9a-f]{8}-[0-9a-f-]+$/i.test(entry.target_id)) return `/admin/users/${entry.target_id}`;
  if (entry.target_type === 'license' && /^\d+$/.test(entry.target_id)) return `/admin/licenses/${entry.target_id}`;
  // One sale (a receipt, a refund): its order detail, where the 注文番号 is.
  if (entry.target_type === 'sale' && /^\d+$/.test(entry.target_id)) return `/admin/sales/${entry.target_id}`;
  return null;
}
