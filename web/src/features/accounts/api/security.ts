import useSWR from 'swr';
import { type Answer, api, type RequestBody, type Schema } from '../../../lib/api';

/** 二段階認証 and passkeys on /account/security and the password page. */
export type Passkey = Schema<'Passkey'>;
export type TwoFactorSetup = Answer<'/api/me/two-factor/setup', 'post'>;

export const useTwoFactorStatus = () => useSWR<Answer<'/api/me/two-factor'>>('/api/me/two-factor');
export const usePasskeys = () => useSWR<Answer<'/api/me/passkeys'>>('/api/me/passkeys');

/** Step 1 of enrolment: the secret and its otpauth:// URI (the current password asked). */
export const setupTwoFactor = (body: RequestBody<'/api/me/two-factor/setup', 'post'>) =>
  api<TwoFactorSetup>('/api/me/two-factor/setup', { method: 'POST', body });
/** Step 2: the first code turns two-factor on and gives the recovery codes. */
export const enableTwoFactor = (body: RequestBody<'/api/me/two-factor/enable', 'post'>) =>
  api<Answer<'/api/me/two-factor/enable', 'post'>>('/api/me/two-factor/enable', { method: 'POST', body });
export const renewRecoveryCodes = (body: RequestBody<'/api/me/two-factor/recovery-codes', 'post'>) =>
  api<Answer<'/api/me/two-factor/recovery-codes', 'post'>>('/api/me/two-factor/recovery-codes', { method: 'POST', body });
export const disableTwoFactor = (body: RequestBody<'/api/me/two-factor', 'delete'>) =>
  api<Answer<'/api/me/two-factor', 'delete'>>('/api/me/two-factor', { method: 'DELETE', body });

/** The browser's WebAuthn options, once the password (and code) are given again. */
export const passkeyOptions = (body: RequestBody<'/api/me/passkeys/options', 'post'>) =>
  api<Answer<'/api/me/passkeys/options', 'post'>>('/api/me/passkeys/options', { method: 'POST', body });
/** `response`: the browser's credential as JSON, opaque here (the server checks it). */
export const addPasskey = (response: unknown, name: string) =>
  api<Answer<'/api/me/passkeys', 'post'>>('/api/me/passkeys', { method: 'POST', body: { response, name } });
export const deletePasskey = (id: string) =>
  api<Answer<'/api/me/passkeys/{id}', 'delete'>>(`/api/me/passkeys/${id}`, { method: 'DELETE' });
