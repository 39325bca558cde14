import useSWR from 'swr';

/** One place the member is signed in (GET /api/me/sessions). */
export interface MemberSession {
  id: string;
  current: boolean;
  created_at: string;
  last_active_at: string;
  ip: string | null;
  user_agent: string | null;
  /** 「Chrome（Windows）」 */
  device: string;
}

export function useSessions(enabled: boolean) {
  return useSWR<{ sessions: MemberSession[] }>(enabled ? '/api/me/sessions' : null);
}
