import type { Context, MiddlewareHandler } from 'hono';
import { currentRequest } from '../lib/request-context.ts';
import type { AppEnv, SessionUser } from './context.ts';
import { AppError } from './errors.ts';

/** The signed-in user, read from the session cookie once per request (no cookie cache). */
export async function currentUser(c: Context<AppEnv>): Promise<SessionUser | null> {
  const known = c.get('user');
  if (known !== undefined) return known;
  const user = await c.var.deps.sessions(c.req.raw.headers);
  c.set('user', user);
  // Log lines from here on name the member by id (never e-mail or name).
  const context = currentRequest();
  if (context && user) context.userId = user.id;
  return user;
}

export const isAdmin = (user: SessionUser) => user.role === 'admin';

/** 401 unless signed in. */
export const requireUser: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (!(await currentUser(c))) throw new AppError('unauthorized');
  return next();
};

/** 401 unless signed in, 403 unless an administrator. */
export const requireAdmin: MiddlewareHandler<AppEnv> = async (c, next) => {
  const user = await currentUser(c);
  if (!user) throw new AppError('unauthorized');
  if (!isAdmin(user)) throw new AppError('forbidden');
  return next();
};

/** 401 unless signed in, 403 unless the `:param` user is the signed-in one or they are an administrator. */
export const requireSelfOrAdmin =
  (param = 'id'): MiddlewareHandler<AppEnv> =>
  async (c, next) => {
    const user = await currentUser(c);
    if (!user) throw new AppError('unauthorized');
    if (user.id !== c.req.param(param) && !isAdmin(user)) throw new AppError('forbidden');
    return next();
  };

/** The signed-in user inside a guarded handler. */
export function signedInUser(c: Context<AppEnv>): SessionUser {
  const user = c.get('user');
  if (!user) throw new AppError('unauthorized');
  return user;
}
