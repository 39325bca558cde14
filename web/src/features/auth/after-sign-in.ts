import type { CurrentUser } from '../../lib/auth-store';
import { isStaff } from '../../lib/permissions';
import { ENROLMENT, homeOf, mustEnrol } from '../../lib/user-home';
import { safeNext } from './return-to';

/** Where sign-in leads: the page the member was going to (`next`, a path of this site) or their home. */
export function afterSignIn(user: CurrentUser, next: string | null): string {
  const target = safeNext(next);
  if (mustEnrol(user)) return ENROLMENT;
  // A member sent on to a back-office page would only meet a 403.
  if (!target || (!isStaff(user) && /^\/admin(\/|$)/.test(target))) return homeOf(user);
  return target;
}
