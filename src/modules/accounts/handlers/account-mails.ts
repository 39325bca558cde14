import type { EventHandler, JobContext } from '../../../jobs/context.ts';
import { japanTime, renderMail, sendOnce } from '../../mail/index.ts';
import { User } from '../entities/user.entity.ts';
import { issueToken } from '../tokens.ts';
import { describeUserAgent } from '../user-agent.ts';
import { findUserByEmail } from '../users.ts';

const greeting = (user: User) => `${`${user.lastName} ${user.firstName}`.trim() || 'お客'} 様`;
const UNVERIFIED_GREETING = 'お客様';
/** To an unverified address, only a name that reads as one: never a link typed as a name. */
const NAME_ONLY = /^[\p{L}\p{M}々ー・ ]{1,40}$/u;
const unverifiedGreeting = (user: User) => {
  const name = `${user.lastName} ${user.firstName}`.trim();
  return name && NAME_ONLY.test(name) ? `${name} 様` : UNVERIFIED_GREETING;
};
/** As Laravel's do: the form starts filled in. */
const resetLink = (ctx: JobContext, token: string, email: string) =>
  `${ctx.env.appUrl}/reset-password/${token}?email=${encodeURIComponent(email)}`;
const done = (result: 'sent' | 'skipped') => (result === 'sent' ? 'done' : 'skipped');

async function loadUser(ctx: JobContext, id: string): Promise<User | null> {
  return ctx.em.findOne(User, { id });
}

async function sendVerification(ctx: JobContext, eventId: string, userId: string) {
  const user = await loadUser(ctx, userId);
  if (!user || user.emailVerified) return 'skipped';
  const key = `${eventId}:verification`;
  const token = await issueToken(ctx.em, ctx.authSecret, key, user.id, 'verify-email');
  const result = await sendOnce(ctx, key, 'verification', user.id, {
    to: user.email,
    ...renderMail({
      subject: 'メールアドレスの確認をお願いします',
      greeting: unverifiedGreeting(user),
      paragraphs: [
        '会員登録のお申し込みありがとうございます。',
        '下のボタンからメールアドレスの確認を完了してください。確認が済むとログインできるようになります。',
      ],
      action: { label: 'メールアドレスを確認する', url: `${ctx.env.appUrl}/api/users/registration/verify/${token}` },
      notes: ['このリンクの有効期限は24時間です。', 'お心当たりのない場合は、このメールを破棄してください。'],
    }),
  });
  return done(result);
}

export const onUserRegistered: EventHandler<'UserRegistered'> = (ctx, event) =>
  sendVerification(ctx, event.id, event.payload.userId);

export const onVerificationEmailRequested: EventHandler<'VerificationEmailRequested'> = (ctx, event) =>
  sendVerification(ctx, event.id, event.payload.userId);

export const onRegistrationAttempted: EventHandler<'RegistrationAttempted'> = async (ctx, event) => {
  const user = await loadUser(ctx, event.payload.userId);
  if (!user) return 'skipped';
  const key = `${event.id}:already-registered`;
  const token = await issueToken(ctx.em, ctx.authSecret, key, user.id, 'reset-password');
  const result = await sendOnce(ctx, key, 'already-registered', user.id, {
    to: user.email,
    ...renderMail({
      subject: 'このメールアドレスは登録済みです',
      greeting: greeting(user),
      paragraphs: [
        'このメールアドレスで会員登録のお申し込みがありましたが、すでに会員登録が済んでいます。',
        'ログイン画面から今のパスワードでログインしてください。パスワードをお忘れの場合は、下のボタンから再設定できます。',
      ],
      action: { label: 'パスワードを再設定する', url: resetLink(ctx, token, user.email) },
      notes: [
        'このリンクの有効期限は1時間です。',
        'お心当たりのない場合は、このメールを破棄してください。アカウントは変更されません。',
      ],
    }),
  });
  return done(result);
};

export const onPasswordResetRequested: EventHandler<'PasswordResetRequested'> = async (ctx, event) => {
  const { userId, email } = event.payload;
  const user = userId ? await loadUser(ctx, userId) : email ? await findUserByEmail(ctx.em, email) : null;
  if (!user) return 'skipped';
  const key = `${event.id}:password-reset`;
  const token = await issueToken(ctx.em, ctx.authSecret, key, user.id, 'reset-password');
  const result = await sendOnce(ctx, key, 'password-reset', user.id, {
    to: user.email,
    ...renderMail({
      subject: 'パスワード再設定のご案内',
      greeting: greeting(user),
      paragraphs: ['パスワード再設定のお申し込みを受け付けました。', '下のボタンから新しいパスワードを設定してください。'],
      action: { label: 'パスワードを再設定する', url: resetLink(ctx, token, user.email) },
      notes: [
        'このリンクの有効期限は1時間で、一度だけ使えます。',
        'お心当たりのない場合は、このメールを破棄してください。パスワードは変更されません。',
      ],
    }),
  });
  return done(result);
};

export const onEmailChangeRequested: EventHandler<'EmailChangeRequested'> = async (ctx, event) => {
  const user = await loadUser(ctx, event.payload.userId);
  if (!user) return 'skipped';
  const { newEmail } = event.payload;
  const key = `${event.id}:email-change`;
  const token = await issueToken(ctx.em, ctx.authSecret, key, user.id, 'change-email', newEmail);
  const confirm = await sendOnce(ctx, key, 'email-change', user.id, {
    to: newEmail,
    ...renderMail({
      subject: '新しいメールアドレスの確認をお願いします',
      // The address is not verified yet: no text the requester typed goes to it.
      greeting: UNVERIFIED_GREETING,
      paragraphs: [
        '会員情報のメールアドレス変更を受け付けました。',
        '下のボタンから新しいメールアドレスの確認を完了してください。確認が済むまでは、これまでのメールアドレスでログインできます。',
      ],
      action: { label: 'メールアドレスを確認する', url: `${ctx.env.appUrl}/api/users/email-change/verify/${token}` },
      notes: ['このリンクの有効期限は24時間です。', 'お心当たりのない場合は、このメールを破棄してください。'],
    }),
  });
  const notice = await sendOnce(ctx, `${event.id}:email-change-notice`, 'email-change-notice', user.id, {
    to: user.email,
    ...renderMail({
      subject: 'メールアドレス変更のお知らせ',
      greeting: greeting(user),
      paragraphs: [
        `会員情報のメールアドレスを ${newEmail} に変更するお申し込みがありました。新しいメールアドレスの確認が済むと変更されます。`,
        'お心当たりのない場合は、すぐにパスワードを変更し、お問い合わせ窓口までご連絡ください。',
      ],
    }),
  });
  return confirm === 'sent' || notice === 'sent' ? 'done' : 'skipped';
};

export const onSignInThrottled: EventHandler<'SignInThrottled'> = async (ctx, event) => {
  const user = await loadUser(ctx, event.payload.userId);
  if (!user) return 'skipped';
  const key = `${event.id}:sign-in-throttled`;
  const token = await issueToken(ctx.em, ctx.authSecret, key, user.id, 'reset-password');
  const result = await sendOnce(ctx, key, 'sign-in-throttled', user.id, {
    to: user.email,
    ...renderMail({
      subject: 'ログインを一時的に制限しました',
      greeting: greeting(user),
      paragraphs: [
        'お客様のアカウントで、誤ったパスワードによるログインが続いたため、安全のためにログインを15分間制限しました。',
        'ご自身の操作でない場合は、第三者がパスワードを試している可能性があります。下のボタンからパスワードを再設定してください。',
      ],
      action: { label: 'パスワードを再設定する', url: resetLink(ctx, token, user.email) },
      notes: ['このリンクの有効期限は1時間で、一度だけ使えます。', '15分たつと、これまでどおりログインできます。'],
    }),
  });
  return done(result);
};

export const onEmailChangeAttempted: EventHandler<'EmailChangeAttempted'> = async (ctx, event) => {
  const user = await loadUser(ctx, event.payload.userId);
  if (!user) return 'skipped';
  const result = await sendOnce(ctx, `${event.id}:email-change-attempted`, 'email-change-attempted', user.id, {
    to: user.email,
    ...renderMail({
      subject: 'メールアドレスの利用についてのお知らせ',
      greeting: greeting(user),
      paragraphs: [
        '別の会員アカウントのメールアドレスを、お客様のメールアドレスに変更しようとする操作がありました。',
        'お客様のアカウントは変更されていません。メールアドレスは一つのアカウントでしか使えないため、この変更は行われません。',
      ],
      notes: ['お心当たりのない場合も、特に操作は必要ありません。このメールは送信専用です。'],
    }),
  });
  return done(result);
};

export const onEmailChangedByAdmin: EventHandler<'EmailChangedByAdmin'> = async (ctx, event) => {
  const user = await loadUser(ctx, event.payload.userId);
  if (!user) return 'skipped';
  const { oldEmail } = event.payload;
  const toNew = await sendOnce(ctx, `${event.id}:email-changed-new`, 'email-changed-by-admin', user.id, {
    to: user.email,
    ...renderMail({
      subject: 'メールアドレスを変更しました',
      greeting: greeting(user),
      paragraphs: [
        `管理者が会員情報のメールアドレスを ${oldEmail} からこのメールアドレスに変更しました。`,
        '今後はこのメールアドレスとこれまでのパスワードでログインしてください。',
      ],
      action: { label: 'ログインする', url: `${ctx.env.appUrl}/login` },
      notes: ['お心当たりのない場合は、お問い合わせ窓口までご連絡ください。'],
    }),
  });
  const toOld = await sendOnce(ctx, `${event.id}:email-changed-old`, 'email-changed-by-admin-notice', user.id, {
    to: oldEmail,
    ...renderMail({
      subject: 'メールアドレス変更のお知らせ',
      greeting: greeting(user),
      paragraphs: [
        `管理者が会員情報のメールアドレスを ${user.email} に変更しました。このメールアドレスではログインできなくなります。`,
        'お心当たりのない場合は、お問い合わせ窓口までご連絡ください。',
      ],
    }),
  });
  return toNew === 'sent' || toOld === 'sent' ? 'done' : 'skipped';
};

/** The account is gone: the mail log keeps it under nobody. */
export const onMemberWithdrew: EventHandler<'MemberWithdrew'> = async (ctx, event) => {
  const { email, name } = event.payload;
  const result = await sendOnce(ctx, `${event.id}:withdrawal`, 'withdrawal', null, {
    to: email,
    ...renderMail({
      subject: '退会手続き完了のお知らせ',
      greeting: `${name || 'お客'} 様`,
      paragraphs: [
        'ライセンスストアの退会手続きが完了しました。これまでご利用いただき、ありがとうございました。',
        '会員情報（氏名、メールアドレス、所属、パスワード）は削除しました。このメールアドレスとパスワードではログインできません。',
        'ご購入の記録（購入時の氏名・メールアドレス・所属の控えを含みます）は、経理上の保存義務のため引き続き保管します。',
        '再びご利用の際は、新規会員登録からお手続きください。',
      ],
      notes: ['お心当たりのない場合は、お問い合わせ窓口までご連絡ください。', 'このメールは送信専用です。'],
    }),
  });
  return done(result);
};

const PASSWORD_CHANGED_BY = {
  member: 'お客様のアカウントのパスワードが、会員情報のパスワード変更画面から変更されました。',
  reset: 'お客様のアカウントのパスワードが、パスワード再設定のリンクから再設定されました。',
  admin: 'お客様のアカウントのパスワードが、管理者によって変更されました。',
} as const;

function passkeyParagraphs(by: 'member' | 'reset', names: string[]): string[] {
  const list = names.map((name) => `「${name}」`).join('、');
  if (by === 'reset') {
    return names.length > 0
      ? [`登録されていたパスキー（${list}）もすべて削除しました。パスキーを使う場合は、ログイン後にもう一度登録してください。`]
      : [];
  }
  return names.length > 0
    ? [
        `登録済みのパスキー（${list}）は、引き続きログインに使えます。お心当たりのないパスキーは、パスワード変更画面またはセキュリティ設定から削除してください。`,
      ]
    : [];
}

/** V6.3.7 */
export const onPasswordChanged: EventHandler<'PasswordChanged'> = async (ctx, event) => {
  const user = await loadUser(ctx, event.payload.userId);
  if (!user) return 'skipped';
  const result = await sendOnce(ctx, `${event.id}:password-changed`, 'password-changed', user.id, {
    to: user.email,
    ...renderMail({
      subject: 'パスワード変更のお知らせ',
      greeting: greeting(user),
      paragraphs: [
        PASSWORD_CHANGED_BY[event.payload.by],
        `変更日時: ${japanTime(event.occurredAt)}`,
        ...(event.payload.by === 'admin'
          ? [
              // The member did not choose this password: say where it comes from and what to do.
              'すべての端末でログアウトしました。新しいパスワードは、このメールには記載していません。管理者からのご連絡でお知らせします。',
              'ご自身で新しいパスワードを決めたい場合や、管理者からの連絡がない場合は、下のボタンからパスワードを再設定してください。',
              'この変更にお心当たりのない場合は、お問い合わせ窓口までご連絡ください。',
            ]
          : [
              event.payload.by === 'member'
                ? 'この端末以外でのログインはすべて終了しました。'
                : 'すべての端末でログアウトしました。新しいパスワードでログインしてください。',
              ...passkeyParagraphs(event.payload.by, event.payload.passkeys ?? []),
              'お心当たりのない場合は、第三者がパスワードを変更した可能性があります。下のボタンからすぐにパスワードを再設定し、お問い合わせ窓口までご連絡ください。',
            ]),
      ],
      action: { label: 'パスワードを再設定する', url: `${ctx.env.appUrl}/forgot-password` },
      notes: [
        ...(event.payload.by === 'admin' ? [] : ['ご自身で変更された場合は、このメールへの対応は不要です。']),
        'このメールは送信専用です。',
      ],
    }),
  });
  return done(result);
};

export const onNewDeviceSignIn: EventHandler<'NewDeviceSignIn'> = async (ctx, event) => {
  const user = await loadUser(ctx, event.payload.userId);
  if (!user) return 'skipped';
  const { at, ip, userAgent } = event.payload;
  const result = await sendOnce(ctx, `${event.id}:new-device-sign-in`, 'new-device-sign-in', user.id, {
    to: user.email,
    ...renderMail({
      subject: '新しい端末からのログイン',
      greeting: greeting(user),
      paragraphs: [
        'お客様のアカウントに、これまでログインに使われていない端末（ブラウザ）からログインがありました。',
        `日時: ${japanTime(at)}`,
        `端末: ${describeUserAgent(userAgent)}`,
        `IPアドレス: ${ip}`,
        'ご自身のログインであれば、対応は不要です。お心当たりのない場合は、下のボタンからログイン中の端末を確認してその端末をログアウトさせ、パスワードを変更してください。',
      ],
      action: { label: 'ログイン中の端末を確認する', url: `${ctx.env.appUrl}/users/${user.id}#sessions` },
      notes: ['このメールは送信専用です。'],
    }),
  });
  return done(result);
};

const TWO_FACTOR_CHANGES = {
  enabled: '二段階認証（確認コード）を有効にしました。',
  disabled: '二段階認証（確認コード）を無効にしました。',
  'recovery-codes': '二段階認証のリカバリーコードを新しく発行しました。これまでのリカバリーコードは使えなくなりました。',
  'passkey-added': 'パスキーを登録しました。',
  'passkey-removed': 'パスキーを削除しました。',
} as const;

export const onTwoFactorChanged: EventHandler<'TwoFactorChanged'> = async (ctx, event) => {
  const user = await loadUser(ctx, event.payload.userId);
  if (!user) return 'skipped';
  const result = await sendOnce(ctx, `${event.id}:two-factor-changed`, 'two-factor-changed', user.id, {
    to: user.email,
    ...renderMail({
      subject: '二段階認証の設定変更のお知らせ',
      greeting: greeting(user),
      paragraphs: [
        `お客様のアカウントで、${japanTime(event.occurredAt)}に次の変更がありました。`,
        TWO_FACTOR_CHANGES[event.payload.change],
        'お心当たりのない場合は、第三者がお客様のアカウントを使っている可能性があります。すぐにパスワードを変更し、お問い合わせ窓口までご連絡ください。',
      ],
      action: { label: 'アカウントの設定を確認する', url: `${ctx.env.appUrl}/account/security` },
      notes: ['このメールは送信専用です。'],
    }),
  });
  return done(result);
};
