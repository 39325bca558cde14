import useSWR from 'swr';
import type { Answer } from '../../../lib/api';

export type UserPage = Answer<'/api/users'>;

export function useUserSearch(params: URLSearchParams) {
  return useSWR<UserPage>(`/api/users?${params.toString()}`);
}
