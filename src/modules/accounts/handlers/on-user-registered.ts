import { createEmailVerificationToken } from 'better-auth/api';
import type { EventHandler } from '../../../jobs/context.ts';
import { renderMail } from '../../mail/layout.ts';
import { sendOnce } from '../../mail/service.ts';
import { User } from '../entities/user.entity.ts';

export const VERIFICATION_TTL_SECONDS = 24 * 3600;

/** UserRegistered → the verification e-mail (once per event). */
export const onUserRegistered: EventHandler<'UserRegistered'> = async (ctx, event) => {
  const user = await ctx.em.findOne(User, { id: event.payload.userId });
  if (!user || user.emailVerified) return 'skipped';
  const token = await createEmailVerificationToken(ctx.authSecret, user.email, undefined, VERIFICATION_TTL_SECONDS);
  const callback = encodeURIComponent('/users/registration/email-verified');
  const url = `${ctx.env.appUrl}/api/auth/verify-email?token=${token}&callbackURL=${callback}`;
  const mail = renderMail({
    subject: 'メールアドレスの確認をお願いします',
    greeting: `${user.lastName} ${user.firstName} 様`.trim(),
    paragraphs: [
      '会員登録のお申し込みありがとうございます。',
      '下のボタンからメールアドレスの確認を完了してください。確認が済むとログインできるようになります。',
    ],
    action: { label: 'メールアドレスを確認する', url },
    notes: ['このリンクの有効期限は24時間です。', 'お心当たりのない場合は、このメールを破棄してください。'],
  });
  const result = await sendOnce(ctx.em, ctx.mailer, `${event.id}:verification`, 'verification', { to: user.email, ...mail });
  return result === 'sent' ? 'done' : 'skipped';
};
