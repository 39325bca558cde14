import useSWR from 'swr';
import { type Answer, api, type RequestBody } from '../../lib/api';

export type Announcement = Answer<'/api/announcements/{id}'>;
export type AnnouncementDraft = RequestBody<'/api/announcements', 'post'>;

/** Announcements newest first; refreshed every few seconds while one is being sent. */
export function useAnnouncements(page: number) {
  return useSWR<Answer<'/api/announcements'>>(`/api/announcements?page=${page}`, {
    refreshInterval: (data) => (data?.announcements.some((a) => a.state === 'queued' || a.state === 'sending') ? 2000 : 0),
  });
}

/** The licences an announcement may link to (their names, for the select). */
export function useLicenseChoices() {
  return useSWR<Answer<'/api/licenses'>>('/api/licenses?page=1&per_page=100&sort=position');
}

export const previewAnnouncement = (draft: AnnouncementDraft) =>
  api<Answer<'/api/announcements/preview', 'post'>>('/api/announcements/preview', { method: 'POST', body: draft });

export const testAnnouncement = (draft: AnnouncementDraft) =>
  api<Answer<'/api/announcements/test', 'post'>>('/api/announcements/test', { method: 'POST', body: draft });

export const sendAnnouncement = (draft: AnnouncementDraft) =>
  api<Answer<'/api/announcements', 'post'>>('/api/announcements', { method: 'POST', body: draft });

export const cancelAnnouncement = (id: string) =>
  api<Answer<'/api/announcements/{id}/cancel', 'post'>>(`/api/announcements/${id}/cancel`, { method: 'POST' });

export type LegalNotice = Answer<'/api/announcements/legal-notice'>;

/** The terms revision's notice: its text, audience and the notices sent; refreshed while one is being sent. */
export function useLegalNotice() {
  return useSWR<LegalNotice>('/api/announcements/legal-notice', {
    refreshInterval: (data) => (data?.notices.some((n) => n.state === 'queued' || n.state === 'sending') ? 2000 : 0),
  });
}

export const testLegalNotice = () =>
  api<Answer<'/api/announcements/legal-notice/test', 'post'>>('/api/announcements/legal-notice/test', { method: 'POST' });

export const sendLegalNotice = (body: RequestBody<'/api/announcements/legal-notice', 'post'>) =>
  api<Answer<'/api/announcements/legal-notice', 'post'>>('/api/announcements/legal-notice', { method: 'POST', body });
