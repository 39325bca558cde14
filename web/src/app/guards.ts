import { data, type LoaderFunctionArgs, redirect } from 'react-router';
import { loginFor, safeNext } from '../features/auth/return-to';
import { type CurrentUser, fetchCurrentUser } from '../lib/auth-store';

const pathOf = (args?: Pick<LoaderFunctionArgs, 'request'>) => {
  if (!args) return '/';
  const url = new URL(args.request.url);
  return `${url.pathname}${url.search}`;
};

/**
 * Client guard: signed-out users go to /login, which brings them back here after signing in
 * (the server enforces the same rules on every call).
 */
export async function requireSignedIn(args?: Pick<LoaderFunctionArgs, 'request'>): Promise<CurrentUser> {
  const user = await fetchCurrentUser();
  if (!user) throw redirect(loginFor(pathOf(args)));
  return user;
}

export async function requireAdministrator(args?: Pick<LoaderFunctionArgs, 'request'>): Promise<CurrentUser> {
  const user = await requireSignedIn(args);
  if (user.role !== 'admin') throw data({ message: 'このページを表示する権限がありません。' }, { status: 403 });
  // Administrators enrol in two-factor before anything else (the server refuses them until then).
  if (!user.two_factor_enabled) throw redirect(ENROLMENT);
  return user;
}

/** Where an administrator without two-factor is sent. */
export const ENROLMENT = '/account/security?enrol=1';

export const mustEnrol = (user: CurrentUser) => user.role === 'admin' && !user.two_factor_enabled;

/** Where a signed-in user starts. */
export function homeOf(user: CurrentUser): string {
  if (mustEnrol(user)) return ENROLMENT;
  return user.role === 'admin' ? '/admin' : `/users/${user.id}`;
}

/** Where sign-in leads: the page the member was going to (`next`, a path of this site) or their home. */
export function afterSignIn(user: CurrentUser, next: string | null): string {
  const target = safeNext(next);
  if (mustEnrol(user)) return ENROLMENT;
  // A member sent on to a back-office page would only meet a 403.
  if (!target || (user.role !== 'admin' && /^\/admin(\/|$)/.test(target))) return homeOf(user);
  return target;
}

/** Sign-in and registration are for signed-out visitors: a signed-in user goes on (or home). */
export async function redirectSignedIn({ request }: Pick<LoaderFunctionArgs, 'request'>) {
  const user = await fetchCurrentUser().catch(() => null);
  return user ? redirect(afterSignIn(user, new URL(request.url).searchParams.get('next'))) : null;
}
