import { data, type LoaderFunctionArgs, redirect } from 'react-router';
import { afterSignIn } from '../features/auth/after-sign-in';
import { loginFor } from '../features/auth/return-to';
import { type CurrentUser, fetchCurrentUser } from '../lib/auth-store';
import { isStaff, type Permission, ROLE_LABELS, userMay } from '../lib/permissions';
import { ENROLMENT } from '../lib/user-home';

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
  if (!isStaff(user)) throw data({ message: 'このページを表示する権限がありません。' }, { status: 403 });
  // Staff enrol in two-factor before anything else (the server refuses them until then).
  if (!user.two_factor_enabled) throw redirect(ENROLMENT);
  return user;
}

/** A back-office page that changes something: only for a role that may (the server checks again). */
export const requirePermission = (permission: Permission) => async (args?: Pick<LoaderFunctionArgs, 'request'>) => {
  const user = await requireAdministrator(args);
  if (!userMay(user, permission)) {
    throw data({ message: `「${ROLE_LABELS[user.role]}」の権限ではこのページは使えません。` }, { status: 403 });
  }
  return user;
};

/** Sign-in and registration are for signed-out visitors: a signed-in user goes on (or home). */
export async function redirectSignedIn({ request }: Pick<LoaderFunctionArgs, 'request'>) {
  const user = await fetchCurrentUser().catch(() => null);
  return user ? redirect(afterSignIn(user, new URL(request.url).searchParams.get('next'))) : null;
}
