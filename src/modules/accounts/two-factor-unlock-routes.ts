import { Hono } from 'hono';
import * as v from 'valibot';
import { LIMITS } from '../../config/limits.ts';
import { addressBucket, clientIp } from '../../http/client-ip.ts';
import type { AppEnv } from '../../http/context.ts';
import { jsonInput } from '../../http/validate.ts';
import { checkUnlockLink, unlockTwoFactor } from './two-factor-lock.ts';

const LINK_WRONG = 'リンクが正しくありません。';
const UnlockInput = v.object({
  token: v.pipe(v.string(LINK_WRONG), v.minLength(1, LINK_WRONG), v.maxLength(200, LINK_WRONG)),
});

/** The mailed link that allows codes again after the escalation (two-factor-lock.ts). */
export const twoFactorUnlockRoutes = new Hono<AppEnv>()
  // The page asks first, so a used or expired link says so before the button is pressed.
  .get('/two-factor/unlock/:token', async (c) => c.json(await checkUnlockLink(c.var.deps.orm, c.req.param('token'))))
  .post('/two-factor/unlock', async (c) => {
    const { deps } = c.var;
    const { token } = await jsonInput(c, UnlockInput);
    await deps.rateLimit.hit(LIMITS.mailRequestsPerAddress, addressBucket(clientIp(c, deps.env.trustProxyHeader)));
    await unlockTwoFactor(deps.orm, token);
    return c.json({ message: '確認コードによるログインを再開しました。もう一度ログインしてください。' });
  });
