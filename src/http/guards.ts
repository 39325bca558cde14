import type { Context, MiddlewareHandler, Next } from 'hono';
import { networkList } from '../config/networks.ts';
import { currentRequest } from '../lib/request-context.ts';
import { can, isRole, isStaffRole, type Permission, ROLE_LABELS } from './access.ts';
import { clientIp } from './client-ip.ts';
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

/** A back-office role (admin, operator, viewer), whether or not its holder may use it yet (see isStaff). */
export const hasStaffRole = (user: SessionUser) => isStaffRole(user.role);

/**
 * Staff who may act as such: the role and two-factor enrolled (docs/decisions/0027). Until they enrol,
 * staff are treated as members everywhere and refused every back-office call.
 */
export const isStaff = (user: SessionUser) => hasStaffRole(user) && user.twoFactorEnabled;

/** Enrolled staff whose role grants `permission`. */
export const may = (user: SessionUser, permission: Permission) => isStaff(user) && can(user.role, permission);

const TWO_FACTOR_ENROLLMENT_REQUIRED = 'two_factor_enrollment_required';

/** 403 for staff who have not enrolled in two-factor yet: the SPA sends them to enrolment. */
const enrollmentRequired = () =>
  new AppError('forbidden', '管理者は二段階認証の設定が必要です。', {
    details: { code: TWO_FACTOR_ENROLLMENT_REQUIRED },
  });

const forbiddenForRole = (role: string) =>
  new AppError('forbidden', `「${isRole(role) ? ROLE_LABELS[role] : role}」の権限ではこの操作はできません。`, {
    details: { code: 'forbidden_for_role', role },
  });

/** 401 unless signed in. */
export const requireUser: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (!(await currentUser(c))) throw new AppError('unauthorized');
  return next();
};

const allowLists = new WeakMap<readonly string[], ReturnType<typeof networkList>>();

const networkRefused = () =>
  new AppError(
    'forbidden',
    'このネットワークからは管理画面を使えません。許可された場所（社内のネットワークなど）から接続してください。',
    { details: { code: 'admin_network_refused' } },
  );

/** ADMIN_ALLOWED_NETWORKS, against the address the rate limits see (TRUST_PROXY_HEADER honoured). */
export async function checkNetwork(c: Context<AppEnv>, user: SessionUser) {
  const { env, staffNetworkRefused } = c.var.deps;
  const cidrs = env.adminAllowedNetworks;
  if (!cidrs) return;
  const list = allowLists.get(cidrs) ?? networkList(cidrs);
  allowLists.set(cidrs, list);
  const ip = clientIp(c, env.trustProxyHeader);
  if (list.allows(ip)) return;
  await staffNetworkRefused(user, ip);
  throw networkRefused();
}

async function checkStaff(c: Context<AppEnv>, user: SessionUser, permission: Permission) {
  if (!hasStaffRole(user)) throw new AppError('forbidden');
  await checkNetwork(c, user);
  if (!user.twoFactorEnabled) throw enrollmentRequired();
  if (!can(user.role, permission)) throw forbiddenForRole(user.role);
}

/** The one back-office guard: 401 unless signed in, 403 unless staff whose role grants `permission` (http/access.ts). */
export const permit = (permission: Permission): MiddlewareHandler<AppEnv> & { permission: Permission } =>
  Object.assign(
    async (c: Context<AppEnv>, next: Next) => {
      const user = await currentUser(c);
      if (!user) throw new AppError('unauthorized');
      await checkStaff(c, user, permission);
      return next();
    },
    { permission },
  );

/** 401 unless signed in, 403 unless the `:param` user is the signed-in one or staff granted `permission`. */
export const permitSelfOr =
  (permission: Permission, param = 'id'): MiddlewareHandler<AppEnv> =>
  async (c, next) => {
    const user = await currentUser(c);
    if (!user) throw new AppError('unauthorized');
    if (user.id !== c.req.param(param)) await checkStaff(c, user, permission);
    return next();
  };

/** The signed-in user inside a guarded handler. */
export function signedInUser(c: Context<AppEnv>): SessionUser {
  const user = c.get('user');
  if (!user) throw new AppError('unauthorized');
  return user;
}
