import { data, redirect } from 'react-router';
import { type CurrentUser, fetchCurrentUser } from '../lib/auth-store';

/** Client guard: signed-out users go to /login (the server enforces the same rules on every call). */
export async function requireSignedIn(): Promise<CurrentUser> {
  const user = await fetchCurrentUser();
  if (!user) throw redirect('/login');
  return user;
}

export async function requireAdministrator(): Promise<CurrentUser> {
  const user = await requireSignedIn();
  if (user.role !== 'admin') throw data({ message: 'このページを表示する権限がありません。' }, { status: 403 });
  return user;
}

/** Where a signed-in user starts. */
export function homeOf(user: CurrentUser): string {
  return user.role === 'admin' ? '/admin' : `/users/${user.id}`;
}
