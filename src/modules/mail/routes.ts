import { Hono } from 'hono';
import type { AppEnv } from '../../http/context.ts';
import { AppError } from '../../http/errors.ts';
import { permit, signedInUser } from '../../http/guards.ts';
import { queryInput } from '../../http/validate.ts';
import { workersAlive } from '../health/index.ts';
import { listMailsByStatus, mailSummary } from './mail-log.ts';
import { MAIL_NOT_FOUND, resendMail } from './resend.ts';
import { mailDocs } from './responses.ts';
import { MailsQuery } from './schemas.ts';

/** Delivery ids are uuids: no other path under /mails can be taken for one, in any mounting order. */
const MAIL = ':id{[0-9a-f-]+}';
const mailId = (raw: string) => {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(raw))
    throw new AppError('not_found', MAIL_NOT_FOUND);
  return raw;
};

/** The failed-mail view, the admin menu's counts and the operator's resend (administrators). */
export const mailRoutes = new Hono<AppEnv>()
  .get('/mails/summary', mailDocs.summary, permit('mails:read'), async (c) => {
    const [{ summary }, alive] = await Promise.all([mailSummary(c.var.deps.orm), workersAlive(c.var.deps)]);
    return c.json({ summary: { ...summary, workers_alive: alive } });
  })
  .get('/mails', mailDocs.list, permit('mails:read'), async (c) => {
    const query = queryInput(c, MailsQuery);
    return c.json(await listMailsByStatus(c.var.deps.orm, query.status, query));
  })
  .post(`/mails/${MAIL}/resend`, mailDocs.resend, permit('mails:resend'), async (c) => {
    const id = mailId(c.req.param('id'));
    const user = signedInUser(c);
    const { orm, queues, log } = c.var.deps;
    const result = await resendMail({ orm, queues, log }, { id: user.id, email: user.email }, id);
    return c.json({ ...result, message: 'メールの再送信を受け付けました。まもなく送信されます。' });
  });
