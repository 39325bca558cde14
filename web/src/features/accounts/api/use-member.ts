import useSWR from 'swr';
import type { Member } from './profile';

export function useMember(id: string | undefined) {
  return useSWR<{ user: Member }>(id ? `/api/users/${id}` : null);
}
