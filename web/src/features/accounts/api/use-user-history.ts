import useSWR, { mutate } from 'swr';
import type { Answer } from '../../../lib/api';

type MailPage = Answer<'/api/users/{id}/mails'>;
type AuditPage = Answer<'/api/audit-logs'>;
export type UserMail = MailPage['mails'][number];
export type AuditChange = AuditPage['audit_logs'][number]['changes'][number];

const mailsKey = (userId: string) => `/api/users/${userId}/mails`;
const auditKey = (userId: string) => `/api/audit-logs?target_type=user&target_id=${encodeURIComponent(userId)}`;

/**
 * The e-mails sent (or tried) for a member, newest first. Until `watchUntil` (a time in ms) the page
 * is read again every 2 seconds: a mail just asked for is sent by a background job.
 */
export function useUserMails(userId: string, page: number, watchUntil = 0) {
  return useSWR<MailPage>(`${mailsKey(userId)}?page=${page}`, {
    refreshInterval: () => (Date.now() < watchUntil ? 2000 : 0),
  });
}

/** The audit log entries whose target is this user, newest first. */
export function useUserAuditLogs(userId: string, page: number) {
  return useSWR<AuditPage>(`${auditKey(userId)}&page=${page}`);
}

/** Reads the member's mail log and audit entries again (after an action on the user page). */
export function refreshUserHistory(userId: string) {
  return mutate(
    (key) => typeof key === 'string' && (key.startsWith(`${mailsKey(userId)}?`) || key.startsWith(`${auditKey(userId)}&`)),
  );
}
