import { Hono } from 'hono';
import * as v from 'valibot';
import { LIMITS } from '../../config/limits.ts';
import { addressBucket, clientIp } from '../../http/client-ip.ts';
import type { AppEnv } from '../../http/context.ts';
import { currentUser } from '../../http/guards.ts';
import { MessageAnswer, operation } from '../../http/openapi.ts';
import { jsonInput } from '../../http/validate.ts';
import { issueFormToken, MIN_FILL_MS } from './form-token.ts';
import { CONTACT_CATEGORIES, ContactInput, MESSAGE_MAX } from './schemas.ts';
import { assertHumanPace, receiveContact } from './service.ts';

const TAGS = ['お問い合わせ'];
const RECEIVED = 'お問い合わせを受け付けました。確認のメールをお送りしました。担当者より、原則として2営業日以内にご返信します。';

const docs = {
  form: operation('get', {
    summary: 'お問い合わせフォームを開く（送信に使う署名付きの時刻と種類の一覧）',
    tags: TAGS,
    access: 'public',
    answers: {
      200: v.object({
        form_token: v.string(),
        min_fill_seconds: v.number(),
        categories: v.array(v.string()),
        message_max: v.number(),
      }),
    },
  }),
  send: operation('post', {
    summary: 'お問い合わせを送る（ショップと送信者へメール）',
    tags: TAGS,
    access: 'public',
    body: ContactInput,
    answers: { 202: MessageAnswer },
    errors: [429],
  }),
};

/** お問い合わせ: anyone may ask; limited per calling network and per mailbox; a honeypot and a signed time against scripts. */
export const contactRoutes = new Hono<AppEnv>()
  .get('/contact/form', docs.form, (c) =>
    c.json({
      form_token: issueFormToken(c.var.deps.authSecret),
      min_fill_seconds: MIN_FILL_MS / 1000,
      categories: [...CONTACT_CATEGORIES],
      message_max: MESSAGE_MAX,
    }),
  )
  .post('/contact', docs.send, async (c) => {
    const input = await jsonInput(c, ContactInput);
    const { deps } = c.var;
    assertHumanPace(deps.authSecret, input);
    // A filled honeypot gets the same answer and nothing is sent: the script learns nothing.
    if (input.website.trim() !== '') return c.json({ message: RECEIVED }, 202);
    await deps.rateLimit.hit(LIMITS.contactsPerAddress, addressBucket(clientIp(c, deps.env.trustProxyHeader)));
    await deps.rateLimit.hit(LIMITS.contactsPerMailbox, input.email.toLowerCase());
    await receiveContact(deps.orm, input, await currentUser(c));
    return c.json({ message: RECEIVED }, 202);
  });
