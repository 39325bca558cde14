import useSWR from 'swr';
import { type Answer, api } from '../../../lib/api';

/** Where the member is signed in (GET /api/me/sessions). */
export function useSessions(enabled: boolean) {
  return useSWR<Answer<'/api/me/sessions'>>(enabled ? '/api/me/sessions' : null);
}

/** Signs out one session (`/api/me/sessions/{id}`) or every other one (`/api/me/sessions`). */
export const endSessions = (path: `/api/me/sessions${string}`) =>
  api<Answer<'/api/me/sessions', 'delete'>>(path, { method: 'DELETE' });
