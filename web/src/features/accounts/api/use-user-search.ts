import useSWR from 'swr';
import type { Member } from './profile';

export interface UserPage {
  users: (Member & { created_at?: string })[];
  total: number;
  /** More than `total` match: the list says 「10,000件以上」. */
  total_capped: boolean;
  page: number;
  per_page: number;
}

export function useUserSearch(params: URLSearchParams) {
  return useSWR<UserPage>(`/api/users?${params.toString()}`);
}
