import { useSyncExternalStore } from 'react';
import { ApiError, api, type FieldErrors, INVALID_INPUT_MESSAGE } from './api';

export interface CurrentUser {
  id: string;
  email: string;
  last_name: string;
  first_name: string;
  role: 'admin' | 'user' | string;
  email_verified: boolean;
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
  const { users } = await api<{ users: CurrentUser[] }>('/api/login');
  setState({ ...state, users });
  return users[0] ?? null;
}

export async function login(email: string, password: string): Promise<CurrentUser | null> {
  try {
    const { users } = await api<{ users: CurrentUser[] }>('/api/login', { method: 'POST', body: { email, password } });
    setState({ ...empty, users });
    return users[0] ?? null;
  } catch (error) {
    if (error instanceof ApiError) {
      setState({ ...empty, message: error.message || INVALID_INPUT_MESSAGE, errors: error.errors });
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
