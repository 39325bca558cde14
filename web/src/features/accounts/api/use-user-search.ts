import useSWR from 'swr';
import type { Member } from './profile';

export interface UserPage {
  users: (Member & { created_at?: string })[];
  total: number;
  page: number;
  per_page: number;
}

export function useUserSearch(params: URLSearchParams) {
  return useSWR<UserPage>(`/api/users?${params.toString()}`);
}
