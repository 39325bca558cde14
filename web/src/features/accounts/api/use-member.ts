import useSWR from 'swr';
import { type Answer, api, type RequestBody } from '../../../lib/api';

export function useMember(id: string | undefined) {
  return useSWR<Answer<'/api/users/{id}'>>(id ? `/api/users/${id}` : null);
}

/** パスワード変更 on the member's own page (the current password asked). */
export const changePassword = (id: string, body: RequestBody<'/api/users/{id}/password', 'put'>) =>
  api<Answer<'/api/users/{id}/password', 'put'>>(`/api/users/${id}/password`, { method: 'PUT', body });
/** 退会: the account is deleted and the session with it. */
export const withdraw = (id: string, body: RequestBody<'/api/users/{id}/withdrawal', 'post'>) =>
  api<Answer<'/api/users/{id}/withdrawal', 'post'>>(`/api/users/${id}/withdrawal`, { method: 'POST', body });
/** 会員登録 from its confirm screen; `affiliations` null (none chosen) gets the server's 422 naming it. */
export const register = (
  body: Omit<RequestBody<'/api/users/registration', 'post'>, 'affiliations'> & { affiliations: number | null },
) => api<Answer<'/api/users/registration', 'post'>>('/api/users/registration', { method: 'POST', body });
