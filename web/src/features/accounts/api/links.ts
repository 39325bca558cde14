import useSWR from 'swr';
import { type Answer, api, type RequestBody } from '../../../lib/api';

/** The mailed links are asked about once when their page opens (a mail scanner's visit changes nothing). */
const ONCE = { revalidateIfStale: false, revalidateOnReconnect: false };

/** GET /api/reset-password/{token}: whether the link still works, and if not why (used, expired, unknown). */
export const useResetLink = (token: string) =>
  useSWR<Answer<'/api/reset-password/{token}'>>(token ? `/api/reset-password/${encodeURIComponent(token)}` : null, ONCE);
/** GET /api/two-factor/unlock/{token}: the lock-out link's state. */
export const useUnlockLink = (token: string) =>
  useSWR<Answer<'/api/two-factor/unlock/{token}'>>(token ? `/api/two-factor/unlock/${encodeURIComponent(token)}` : null, ONCE);

export const forgotPassword = (body: RequestBody<'/api/forgot-password', 'post'>) =>
  api<Answer<'/api/forgot-password', 'post'>>('/api/forgot-password', { method: 'POST', body });
export const resetPassword = (body: RequestBody<'/api/reset-password', 'post'>) =>
  api<Answer<'/api/reset-password', 'post'>>('/api/reset-password', { method: 'POST', body });
export const unlockTwoFactor = (body: RequestBody<'/api/two-factor/unlock', 'post'>) =>
  api<Answer<'/api/two-factor/unlock', 'post'>>('/api/two-factor/unlock', { method: 'POST', body });
