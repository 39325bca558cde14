import { useSyncExternalStore } from 'react';
import { CHECK_INPUT } from '../../../src/lib/field-labels';
import { type Answer, ApiError, api, type FieldErrors, type Schema } from './api';

/** The signed-in user as the sign-in answers give them (`two_factor_enabled`: administrators must be). */
export type CurrentUser = Schema<'User'>;

/** The password was right and the account asks for a second factor (POST /api/login/two-factor). */
export interface TwoFactorChallenge {
  twoFactor: true;
  trustDeviceAvailable: boolean;
}

/** The seed's authentication state (§3): user list, message, field errors, organization. */
export interface AuthState {
  users: CurrentUser[];
  message: string;
  errors: FieldErrors;
  organization: string;
}

const STORAGE_KEY = 'auth.users';
const empty: AuthState = { users: [], message: '', errors: {}, organization: '' };

function restore(): AuthState {
  try {
    const users = JSON.parse(sessionStorage.getItem(STORAGE_KEY) ?? '[]') as CurrentUser[];
    return { ...empty, users: Array.isArray(users) ? users : [] };
  } catch {
    return empty;
  }
}

let state: AuthState = restore();
const listeners = new Set<() => void>();

function setState(next: AuthState) {
  state = next;
  // sessionStorage is only a display cache: the server's cookie session decides access.
  if (next.users.length) sessionStorage.setItem(STORAGE_KEY, JSON.stringify(next.users));
  else sessionStorage.removeItem(STORAGE_KEY);
  for (const listener of listeners) listener();
}

export function useAuth(): AuthState {
  return useSyncExternalStore(
    (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    () => state,
  );
}

export const authState = () => state;

/** Asks the server who is signed in, and updates the cache. */
export async function fetchCurrentUser(): Promise<CurrentUser | null> {
  const { users } = await api<Schema<'SignIn'>>('/api/login');
  setState({ ...state, users });
  return users[0] ?? null;
}

export async function login(email: string, password: string): Promise<CurrentUser | TwoFactorChallenge | null> {
  try {
    const answer = await api<Answer<'/api/login', 'post'>>('/api/login', { method: 'POST', body: { email, password } });
    if ('two_factor_required' in answer) {
      setState({ ...empty });
      return { twoFactor: true, trustDeviceAvailable: Boolean(answer.trust_device_available) };
    }
    const users = answer.users;
    setState({ ...empty, users });
    return users[0] ?? null;
  } catch (error) {
    if (error instanceof ApiError) {
      setState({ ...empty, message: error.message || CHECK_INPUT, errors: error.errors });
      return null;
    }
    throw error;
  }
}

/** The second step of a sign-in (a code or a recovery code), or a passkey sign-in: the seed's answer. */
export async function completeSignIn(path: string, body: unknown): Promise<CurrentUser | null> {
  try {
    const { users } = await api<Schema<'SignIn'>>(path, { method: 'POST', body });
    setState({ ...empty, users });
    return users[0] ?? null;
  } catch (error) {
    if (error instanceof ApiError) {
      setState({ ...empty, message: error.message || CHECK_INPUT, errors: error.errors });
      return null;
    }
    throw error;
  }
}

/** Seed §4: the logout call completes, then the whole state is reset. */
export async function logout(): Promise<void> {
  await api('/api/logout', { method: 'POST' });
  setState(empty);
}

export function clearAuthMessages() {
  if (state.message || Object.keys(state.errors).length) setState({ ...state, message: '', errors: {} });
}
