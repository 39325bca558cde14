import { db as kysely } from '../../db/kysely.ts';
import type { EventHandler } from '../../jobs/context.ts';
import { japanTime, renderMail, sendOnce } from '../mail/index.ts';

/** A name that reads as one; anything else (a link typed as a name) is not echoed to the address given. */
const NAME_ONLY = /^[\p{L}\p{M}々ー・ ]{1,40}$/u;

/**
 * ContactReceived → the question to the shop (Reply-To the sender) and an acknowledgement to the
 * sender. The acknowledgement quotes the message only to a member's own verified address: anyone can
 * type someone else's, and the shop must not carry a stranger's text to them.
 */
export const onContactReceived: EventHandler<'ContactReceived'> = async (ctx, event) => {
  const contact = await kysely(ctx.em)
    .selectFrom('contact_messages')
    .selectAll()
    .where('id', '=', event.payload.contactId)
    .executeTakeFirst();
  if (!contact) return 'skipped';
  const details = [
    `お問い合わせの種類：${contact.category}`,
    `ご注文番号：${contact.order_number ?? '（なし）'}`,
    `受付日時：${japanTime(contact.created_at)}（日本時間）`,
  ];
  const toShop = await sendOnce(
    ctx,
    `${event.id}:contact`,
    'contact',
    null,
    {
      to: ctx.env.contactTo,
      replyTo: contact.email,
      ...renderMail({
        subject: `お問い合わせ：${contact.category}`,
        greeting: 'ご担当者様',
        paragraphs: [
          'お問い合わせフォームから次のお問い合わせがありました。このメールに返信すると、お問い合わせの方に届きます。',
          `お名前：${contact.name}`,
          `メールアドレス：${contact.email}`,
          `会員：${contact.user_id ? `ログイン中の会員（ID ${contact.user_id}）` : 'ログインしていない方'}`,
          ...details,
          '――――――――',
          contact.message,
        ],
      }),
    },
    { about: `contact:${contact.id}` },
  );
  const ack = await sendOnce(
    ctx,
    `${event.id}:contact-ack`,
    'contact-ack',
    contact.user_id,
    {
      to: contact.email,
      ...renderMail({
        subject: 'お問い合わせを受け付けました',
        greeting: NAME_ONLY.test(contact.name) ? `${contact.name} 様` : 'お客様',
        paragraphs: [
          'お問い合わせいただきありがとうございます。次の内容で受け付けました。担当者より、原則として2営業日以内にご返信します。',
          ...details,
          ...(contact.own_address ? ['――――――――', contact.message] : []),
        ],
        notes: [
          'このメールは送信専用です。ご返信いただいても届きません。追加のご連絡はお問い合わせフォームからお願いします。',
          'お心当たりのない場合は、このメールを破棄してください。',
        ],
      }),
    },
    { about: `contact:${contact.id}` },
  );
  return toShop === 'sent' || ack === 'sent' ? 'done' : 'skipped';
};
