import type { CurrentUser } from './auth-store';
import { isStaff } from './permissions';

/** Where an administrator without two-factor is sent. */
export const ENROLMENT = '/account/security?enrol=1';

export const mustEnrol = (user: CurrentUser) => isStaff(user) && !user.two_factor_enabled;

/** Where a signed-in user starts. */
export function homeOf(user: CurrentUser): string {
  if (mustEnrol(user)) return ENROLMENT;
  return isStaff(user) ? '/admin' : `/users/${user.id}`;
}
