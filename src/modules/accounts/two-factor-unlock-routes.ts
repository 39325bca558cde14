import { Hono } from 'hono';
import { LIMITS } from '../../config/limits.ts';
import { addressBucket, clientIp } from '../../http/client-ip.ts';
import type { AppEnv } from '../../http/context.ts';
import { jsonInput } from '../../http/validate.ts';
import { unlockDocs } from './docs.ts';
import { TwoFactorUnlockInput } from './schemas.ts';
import { checkUnlockLink, unlockTwoFactor } from './two-factor-lock.ts';

/** The mailed link that allows codes again after the escalation (two-factor-lock.ts). */
export const twoFactorUnlockRoutes = new Hono<AppEnv>()
  // The page asks first, so a used or expired link says so before the button is pressed.
  .get('/two-factor/unlock/:token', unlockDocs.check, async (c) =>
    c.json(await checkUnlockLink(c.var.deps.orm, c.req.param('token'))),
  )
  .post('/two-factor/unlock', unlockDocs.unlock, async (c) => {
    const { deps } = c.var;
    const { token } = await jsonInput(c, TwoFactorUnlockInput);
    await deps.rateLimit.hit(LIMITS.mailRequestsPerAddress, addressBucket(clientIp(c, deps.env.trustProxyHeader)));
    await unlockTwoFactor(deps.orm, token);
    return c.json({ message: '確認コードによるログインを再開しました。もう一度ログインしてください。' });
  });
