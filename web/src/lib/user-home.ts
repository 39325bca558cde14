import type { CurrentUser } from './auth-store';

/** Where an administrator without two-factor is sent. */
export const ENROLMENT = '/account/security?enrol=1';

export const mustEnrol = (user: CurrentUser) => user.role === 'admin' && !user.two_factor_enabled;

/** Where a signed-in user starts. */
export function homeOf(user: CurrentUser): string {
  if (mustEnrol(user)) return ENROLMENT;
  return user.role === 'admin' ? '/admin' : `/users/${user.id}`;
}
