import { randomUUID } from 'node:crypto';
import { db as kysely } from '../../db/kysely.ts';
import type { Em, Orm } from '../../db/orm.ts';
import { recordEvent, transact } from '../../events/outbox.ts';
import type { SessionUser } from '../../http/context.ts';
import { validationError } from '../../http/errors.ts';
import { checkFormToken } from './form-token.ts';
import type { ContactInput } from './schemas.ts';

const TOO_FAST = 'フォームを開いてから送信までの時間が短すぎます。内容をご確認のうえ、数秒おいてからもう一度送信してください。';
const STALE = 'フォームの有効期限が切れました。ページを再読み込みしてから、もう一度送信してください。';

/** Refuses a form not issued by us, too old, or sent faster than a person types (422, nothing stored). */
export function assertHumanPace(secret: string, input: ContactInput): void {
  const state = checkFormToken(secret, input.form_token);
  if (state === 'too-fast') throw validationError({ form_token: [TOO_FAST] }, TOO_FAST);
  if (state !== 'ok') throw validationError({ form_token: [STALE] }, STALE);
}

/** Stores the question and records the event whose job sends both mails (never SMTP in the request). */
export async function receiveContact(orm: Orm, input: ContactInput, user: SessionUser | null): Promise<string> {
  const id = randomUUID();
  await transact(orm.em as Em, async (tx) => {
    await kysely(tx)
      .insertInto('contact_messages')
      .values({
        id,
        user_id: user?.id ?? null,
        name: input.name,
        email: input.email,
        category: input.category,
        order_number: input.order_number ?? null,
        message: input.message,
        own_address: Boolean(user?.emailVerified && user.email.toLowerCase() === input.email.toLowerCase()),
      })
      .execute();
    recordEvent(tx, 'ContactReceived', { contactId: id });
  });
  return id;
}
