import useSWR from 'swr';

/** One e-mail of the failed-mail view (GET /api/mails?status=failed). */
export interface FailedMail {
  id: string;
  kind: string;
  /** e.g. 「メールアドレスの確認」 */
  kind_label: string;
  recipient: string;
  subject: string;
  status: 'sent' | 'failed' | 'sending';
  /** The server refused it for good (SMTP 5xx): only a resend sends it again. */
  permanent: boolean;
  error: string | null;
  attempts: number;
  message_id: string | null;
  sent_at: string | null;
  failed_at: string | null;
  created_at: string | null;
  /** The member it is for (null: nobody, e.g. a deleted account). */
  user_id: string | null;
}

export interface FailedMailPage {
  mails: FailedMail[];
  total: number;
  page: number;
  per_page: number;
}

/** 'failed': failed for good or for now; 'stuck': still sending longer than the claim lease. */
export type MailView = 'failed' | 'stuck';

export function useFailedMails(page: number, view: MailView = 'failed') {
  return useSWR<FailedMailPage>(`/api/mails?status=${view}&page=${page}`);
}

/** Whether a worker is heard from (GET /api/mails/summary): resent mail waits for one. null: unknown. */
export function useMailWorkers() {
  return useSWR<{ summary: { workers_alive: boolean | null } }>('/api/mails/summary');
}
