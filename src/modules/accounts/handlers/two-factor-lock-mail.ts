import type { EventHandler } from '../../../jobs/context.ts';
import { japanTime, renderMail, sendOnce } from '../../mail/index.ts';
import { User } from '../entities/user.entity.ts';
import { issueToken } from '../tokens.ts';

/** TwoFactorLocked → the owner learns codes are refused, and gets a single-use link (24 hours) to allow them again. */
export const onTwoFactorLocked: EventHandler<'TwoFactorLocked'> = async (ctx, event) => {
  const user = await ctx.em.findOne(User, { id: event.payload.userId });
  if (!user) return 'skipped';
  const key = `${event.id}:two-factor-locked`;
  const token = await issueToken(ctx.em, ctx.authSecret, key, user.id, 'unlock-two-factor');
  const result = await sendOnce(ctx, key, 'two-factor-locked', user.id, {
    to: user.email,
    ...renderMail({
      subject: '確認コードによるログインを停止しました',
      greeting: `${`${user.lastName} ${user.firstName}`.trim() || 'お客'} 様`,
      paragraphs: [
        `お客様のアカウントで、正しいパスワードのあとに誤った確認コードの入力が繰り返されたため、${japanTime(event.occurredAt)}に確認コードによるログインを停止しました。`,
        'ご自身の操作でない場合は、第三者がお客様のパスワードを知っている可能性があります。パスワードを再設定してください（再設定すると停止も解除されます）。',
        'ご自身の操作だった場合は、下のボタンから停止を解除できます。',
      ],
      action: { label: '停止を解除する', url: `${ctx.env.appUrl}/two-factor/unlock/${token}` },
      notes: ['このリンクの有効期限は24時間で、一度だけ使えます。', 'パスキーを登録済みの場合は、パスキーでログインできます。'],
    }),
  });
  return result === 'sent' ? 'done' : 'skipped';
};
