import useSWR, { mutate } from 'swr';

export interface UserMail {
  id: string;
  kind: string;
  /** e.g. 「メールアドレスの確認」 */
  kind_label: string;
  recipient: string;
  subject: string;
  status: 'sent' | 'failed' | 'sending';
  /** Refused for good by the mail server (SMTP 5xx): resent only from 送信に失敗したメール. */
  permanent?: boolean;
  sent_at: string | null;
  failed_at: string | null;
  error: string | null;
  attempts: number;
  created_at?: string | null;
}

export interface AuditChange {
  field: string;
  label: string;
  before: string | null;
  after: string | null;
}

export interface AuditEntry {
  id: string;
  actor_id: string | null;
  actor_email: string | null;
  action: string;
  action_label: string;
  target_type: string;
  target_id: string;
  changes: AuditChange[];
  created_at: string;
}

interface Paged {
  total: number;
  page: number;
  per_page: number;
}

const mailsKey = (userId: string) => `/api/users/${userId}/mails`;
const auditKey = (userId: string) => `/api/audit-logs?target_type=user&target_id=${encodeURIComponent(userId)}`;

/**
 * The e-mails sent (or tried) for a member, newest first. Until `watchUntil` (a time in ms) the page
 * is read again every 2 seconds: a mail just asked for is sent by a background job.
 */
export function useUserMails(userId: string, page: number, watchUntil = 0) {
  return useSWR<Paged & { mails: UserMail[] }>(`${mailsKey(userId)}?page=${page}`, {
    refreshInterval: () => (Date.now() < watchUntil ? 2000 : 0),
  });
}

/** The audit log entries whose target is this user, newest first. */
export function useUserAuditLogs(userId: string, page: number) {
  return useSWR<Paged & { audit_logs: AuditEntry[] }>(`${auditKey(userId)}&page=${page}`);
}

/** Reads the member's mail log and audit entries again (after an action on the user page). */
export function refreshUserHistory(userId: string) {
  return mutate(
    (key) => typeof key === 'string' && (key.startsWith(`${mailsKey(userId)}?`) || key.startsWith(`${auditKey(userId)}&`)),
  );
}
