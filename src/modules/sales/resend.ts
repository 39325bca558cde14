import { Hono } from 'hono';
import * as v from 'valibot';
import { LIMITS } from '../../config/limits.ts';
import { db as kysely } from '../../db/kysely.ts';
import type { Em, Orm } from '../../db/orm.ts';
import { recordEvent, transact } from '../../events/outbox.ts';
import type { AppEnv } from '../../http/context.ts';
import { AppError } from '../../http/errors.ts';
import { permit, signedInUser } from '../../http/guards.ts';
import { operation, pathIds } from '../../http/openapi.ts';
import { NUMERIC_ID } from '../../http/path-ids.ts';
import { japanDay } from '../../lib/japan-time.ts';
import { type Actor, recordAudit } from '../audit/index.ts';
import { SALE_NOT_FOUND } from './refund.ts';

const TOO_MANY = `この注文の購入メールの再送は1日${LIMITS.purchaseMailResendsPerSale.limit}回までです。明日（日本時間の0時以降）にもう一度お試しください。`;

/** Seconds until the next 00:00 in Japan, when the day's count starts again. */
const untilJapanMidnight = (now: Date) => {
  const next = Date.parse(`${japanDay(new Date(now.getTime() + 86_400_000))}T00:00:00+09:00`);
  return Math.max(1, Math.ceil((next - now.getTime()) / 1000));
};

/** Queued through the outbox (the mail worker sends it), audited in the same transaction. */
async function requestResend(orm: Orm, actor: Actor, saleId: number) {
  return transact(orm.em as Em, async (tx) => {
    const sale = await kysely(tx)
      .selectFrom('sales')
      .select(['id', 'order_number', 'user_id'])
      .where('id', '=', saleId)
      .executeTakeFirst();
    if (!sale) throw new AppError('not_found', SALE_NOT_FOUND);
    recordEvent(tx, 'PurchaseMailResendRequested', { saleId });
    recordAudit(tx, actor, {
      action: 'sale.purchase_mail.resend',
      targetType: 'sale',
      targetId: saleId,
      after: { order_number: sale.order_number },
    });
  });
}

const resendDoc = operation('post', {
  summary: '購入のお知らせメールを再送する（会員の現在のメールアドレスへ、1注文1日5回まで）',
  tags: ['売上'],
  access: 'admin',
  permission: 'mails:resend',
  path: { id: pathIds.number },
  answers: { 202: v.object({ message: v.string() }) },
  errors: [429],
});

/** POST /api/sales/{id}/resend-purchase-mail → 202: the mail is a job (STYLE.md 6); the order's mails list it once sent. */
export const resendRoutes = new Hono<AppEnv>().post(
  `/sales/${NUMERIC_ID}/resend-purchase-mail`,
  resendDoc,
  permit('mails:resend'),
  async (c) => {
    const saleId = Number(c.req.param('id'));
    const now = new Date();
    const counted = await c.var.deps.rateLimit.count(LIMITS.purchaseMailResendsPerSale, `${saleId}:${japanDay(now)}`);
    if (counted && counted.count > LIMITS.purchaseMailResendsPerSale.limit) {
      throw new AppError('too_many_requests', TOO_MANY, { retryAfter: untilJapanMidnight(now) });
    }
    const user = signedInUser(c);
    await requestResend(c.var.deps.orm, { id: user.id, email: user.email }, saleId);
    return c.json({ message: '購入のお知らせメールの再送を受け付けました。まもなく会員のメールアドレスに届きます。' }, 202);
  },
);
