import useSWR from 'swr';
import { type Answer, api } from '../../lib/api';

/** One e-mail of the failed-mail view (GET /api/mails?status=failed), with the member it is for. */
export type FailedMail = Answer<'/api/mails'>['mails'][number];

/** 'failed': failed for good or for now; 'stuck': still sending longer than the claim lease. */
export type MailView = 'failed' | 'stuck';

export function useFailedMails(page: number, view: MailView = 'failed') {
  return useSWR<Answer<'/api/mails'>>(`/api/mails?status=${view}&page=${page}`);
}

/** Whether a worker is heard from (GET /api/mails/summary): resent mail waits for one. null: unknown. */
export function useMailWorkers() {
  return useSWR<Answer<'/api/mails/summary'>>('/api/mails/summary');
}

export const resendMail = (id: string) =>
  api<Answer<'/api/mails/{id}/resend', 'post'>>(`/api/mails/${id}/resend`, { method: 'POST' });
