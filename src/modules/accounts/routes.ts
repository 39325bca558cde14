import { APIError } from 'better-auth/api';
import { Hono } from 'hono';
import { clientIp } from '../../http/client-ip.ts';
import type { AppEnv } from '../../http/context.ts';
import { AppError, validationError } from '../../http/errors.ts';
import { currentUser } from '../../http/guards.ts';
import { jsonInput } from '../../http/validate.ts';
import { LoginInput } from './schemas.ts';
import { userDto } from './service.ts';

const LOGIN_PER_IP = { name: 'login-ip', limit: 20, windowSeconds: 15 * 60 };
const LOGIN_PER_ACCOUNT = { name: 'login-account', limit: 10, windowSeconds: 15 * 60 };

const sessionDto = (u: NonNullable<Awaited<ReturnType<typeof currentUser>>>) =>
  userDto({
    id: u.id,
    email: u.email,
    lastName: u.lastName,
    firstName: u.firstName,
    role: u.role,
    emailVerified: u.emailVerified,
  });

/** Copies better-auth's Set-Cookie headers onto our answer. */
function forwardCookies(from: Headers, to: Headers) {
  for (const cookie of from.getSetCookie()) to.append('Set-Cookie', cookie);
}

export const accountRoutes = new Hono<AppEnv>()
  .get('/login', async (c) => {
    const user = await currentUser(c);
    return c.json({ users: user ? [sessionDto(user)] : [] });
  })
  .post('/login', async (c) => {
    const { deps } = c.var;
    const input = await jsonInput(c, LoginInput);
    const ip = clientIp(c, deps.env.trustProxyHeader);
    await deps.rateLimit(LOGIN_PER_IP, ip);
    await deps.rateLimit(LOGIN_PER_ACCOUNT, `${ip}:${input.email}`);
    try {
      const { headers, response } = await deps.auth.api.signInEmail({
        body: { email: input.email, password: input.password, rememberMe: true },
        headers: c.req.raw.headers,
        returnHeaders: true,
      });
      const u = response.user as unknown as Parameters<typeof userDto>[0];
      const res = c.json({ users: [userDto(u)] });
      forwardCookies(headers, res.headers);
      return res;
    } catch (error) {
      if (error instanceof APIError) {
        const code = (error.body as { code?: string } | undefined)?.code;
        if (code === 'EMAIL_NOT_VERIFIED') {
          throw validationError(
            { email: ['メールアドレスの確認が完了していません。届いたメールのリンクを開いてください。'] },
            'メールアドレスの確認が完了していません。',
          );
        }
        if (error.statusCode === 401 || code === 'INVALID_EMAIL_OR_PASSWORD') {
          throw validationError(
            { email: ['メールアドレスまたはパスワードが正しくありません。'] },
            'メールアドレスまたはパスワードが正しくありません。',
          );
        }
        if (error.statusCode === 403) throw new AppError('forbidden', 'このアカウントは利用できません。');
      }
      throw error;
    }
  })
  .post('/logout', async (c) => {
    const res = c.json({ users: [] });
    if (await currentUser(c)) {
      const { headers } = await c.var.deps.auth.api.signOut({ headers: c.req.raw.headers, returnHeaders: true });
      forwardCookies(headers, res.headers);
    }
    return res;
  });
