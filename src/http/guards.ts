import type { Context, MiddlewareHandler } from 'hono';
import { currentRequest } from '../lib/request-context.ts';
import type { AppEnv, SessionUser } from './context.ts';
import { AppError } from './errors.ts';

/** The signed-in user, read from the session cookie once per request (no cookie cache). */
export async function currentUser(c: Context<AppEnv>): Promise<SessionUser | null> {
  const known = c.get('user');
  if (known !== undefined) return known;
  const user = await c.get('deps').sessions(c.req.raw.headers);
  c.set('user', user);
  // Log lines from here on name the member by id (never e-mail or name).
  const context = currentRequest();
  if (context && user) context.userId = user.id;
  return user;
}

/** The administrator role, whether or not its holder may use it yet (see isAdmin). */
export const hasAdminRole = (user: SessionUser) => user.role === 'admin';

/**
 * An administrator who may act as one: the role and two-factor enrolled (docs/decisions/0027). Until
 * they enrol, administrators are treated as members everywhere and refused every admin-only call.
 */
export const isAdmin = (user: SessionUser) => hasAdminRole(user) && user.twoFactorEnabled;

const TWO_FACTOR_ENROLLMENT_REQUIRED = 'two_factor_enrollment_required';

/** 403 for an administrator who has not enrolled in two-factor yet: the SPA sends them to enrolment. */
const enrollmentRequired = () =>
  new AppError('forbidden', '管理者は二段階認証の設定が必要です。', { details: { code: TWO_FACTOR_ENROLLMENT_REQUIRED } });

/** 401 unless signed in. */
export const requireUser: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (!(await currentUser(c))) throw new AppError('unauthorized');
  return next();
};

/** 401 unless signed in, 403 unless an administrator. */
export const requireAdmin: MiddlewareHandler<AppEnv> = async (c, next) => {
  const user = await currentUser(c);
  if (!user) throw new AppError('unauthorized');
  if (!hasAdminRole(user)) throw new AppError('forbidden');
  if (!user.twoFactorEnabled) throw enrollmentRequired();
  return next();
};

/** 401 unless signed in, 403 unless the `:param` user is the signed-in one or they are an administrator. */
export const requireSelfOrAdmin =
  (param = 'id'): MiddlewareHandler<AppEnv> =>
  async (c, next) => {
    const user = await currentUser(c);
    if (!user) throw new AppError('unauthorized');
    if (user.id !== c.req.param(param) && !isAdmin(user)) {
      throw hasAdminRole(user) ? enrollmentRequired() : new AppError('forbidden');
    }
    return next();
  };

/** The signed-in user inside a guarded handler. */
export function signedInUser(c: Context<AppEnv>): SessionUser {
  const user = c.get('user');
  if (!user) throw new AppError('unauthorized');
  return user;
}
