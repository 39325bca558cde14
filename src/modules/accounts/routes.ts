import type { Context } from 'hono';
import { Hono } from 'hono';
import { LIMITS } from '../../config/limits.ts';
import { ROLE_LABELS } from '../../http/access.ts';
import { addressBucket, clientIp } from '../../http/client-ip.ts';
import type { AppEnv } from '../../http/context.ts';
import { AppError, validationError } from '../../http/errors.ts';
import { currentUser, hasStaffRole, isStaff, permit, permitSelfOr, requireUser, signedInUser } from '../../http/guards.ts';
import { collectErrors, jsonInput, parseInput, parseInputs, queryInput, readJson } from '../../http/validate.ts';
import { forceDelete, forcePassword, resendVerificationMail, setRole, userMails } from './admin-users.ts';
import { registrationDocs, signInDocs, userDocs } from './docs.ts';
import { openMemberCsv } from './member-csv.ts';
import { passkeyRoutes, passkeySignInRoutes } from './passkey-routes.ts';
import { assertPasswordFitsOwner } from './password-policy.ts';
import { changePassword, checkResetLink, requestPasswordReset, resetPassword } from './passwords.ts';
import { checkEditable, confirmEmailChange, getUser, updateProfile } from './profile.ts';
import { reauthenticate } from './reauth.ts';
import { register, requestVerificationEmail, verifyEmail } from './registration.ts';
import {
  CurrentPasswordInput,
  EditVersionInput,
  EmailOnlyInput,
  LoginInput,
  NewPasswordPairInput,
  OldPasswordInput,
  PageQuery,
  PasswordPairInput,
  ProfileInput,
  ResetTokenInput,
  RoleInput,
  TwoFactorCodeInput,
  UserExportQuery,
  UserSearchQuery,
  WithdrawalInput,
} from './schemas.ts';
import { sessionRoutes } from './session-routes.ts';
import { signInWithPassword } from './sign-in.ts';
import { signInClient, withCookies } from './sign-in-client.ts';
import { checkCode, forwardCookies, signInStepRoutes, twoFactorRoutes } from './two-factor-routes.ts';
import { twoFactorUnlockRoutes } from './two-factor-unlock-routes.ts';
import { profileDto } from './user-dto.ts';
import { userNoteRoutes } from './user-notes.ts';
import { searchUsers } from './user-search.ts';
import { ADMIN_CANNOT_WITHDRAW, withdraw } from './withdrawal.ts';

const networkOf = (c: Context<AppEnv>) => addressBucket(clientIp(c, c.var.deps.env.trustProxyHeader));

/** Limited per calling network and per mailbox, whoever asks. */
async function limitMail(c: Context<AppEnv>, recipient: string) {
  await c.var.deps.rateLimit.hit(LIMITS.mailRequestsPerAddress, networkOf(c));
  await c.var.deps.rateLimit.hit(LIMITS.mailPerRecipient, recipient.toLowerCase());
}

const actorOf = (c: Context<AppEnv>) => {
  const user = signedInUser(c);
  return { id: user.id, email: user.email };
};

const PASSWORD_FOR_EMAIL_CHANGE = 'メールアドレスを変更するには、現在のパスワードを入力してください。';

const SENT_IF_EXISTS =
  'ご入力のメールアドレスに、ご案内のメールを送信しました。届かない場合は、メールアドレスをご確認のうえ再度お試しください。';

const authRoutes = new Hono<AppEnv>()
  .get('/login', signInDocs.me, async (c) => {
    const user = await currentUser(c);
    return c.json({ users: user ? [await getUser(c.var.deps.orm, user.id)] : [] });
  })
  .post('/login', signInDocs.login, async (c) => {
    const input = await jsonInput(c, LoginInput);
    const outcome = await signInWithPassword(c.var.deps, input, signInClient(c));
    if ('user' in outcome) return withCookies(c.json({ users: [outcome.user] }), outcome.cookies);
    return withCookies(
      c.json({ two_factor_required: true, trust_device_available: outcome.trustDeviceAvailable }),
      outcome.cookies,
    );
  })
  .post('/logout', signInDocs.logout, async (c) => {
    const res = c.json({ users: [] });
    if (await currentUser(c)) {
      const { headers } = await c.var.deps.auth.api.signOut({ headers: c.req.raw.headers, returnHeaders: true });
      forwardCookies(headers, res.headers);
    }
    return res;
  })
  .post('/forgot-password', signInDocs.forgotPassword, async (c) => {
    const { email } = await jsonInput(c, EmailOnlyInput);
    await limitMail(c, email);
    await requestPasswordReset(c.var.deps.orm, email);
    return c.json({ message: SENT_IF_EXISTS });
  })
  // The reset page asks first, so a used or expired link says so before a new password is typed.
  .get('/reset-password/:token', signInDocs.resetLink, async (c) =>
    c.json(await checkResetLink(c.var.deps.orm, c.req.param('token'))),
  )
  .post('/reset-password', signInDocs.resetPassword, async (c) => {
    const input = parseInputs(await readJson(c), ResetTokenInput, PasswordPairInput);
    await c.var.deps.rateLimit.hit(LIMITS.mailRequestsPerAddress, networkOf(c));
    await resetPassword(c.var.deps.orm, input);
    return c.json({
      message:
        'パスワードを再設定しました。すべての端末でログアウトし、登録されていたパスキーも削除しました。新しいパスワードでログインしてください。',
    });
  });

async function registrationInput(body: Record<string, unknown>) {
  const [input] = await collectErrors(
    () => parseInputs(body, ProfileInput, PasswordPairInput),
    () =>
      assertPasswordFitsOwner('password', body.password, {
        email: body.email,
        lastName: body.last_name,
        firstName: body.first_name,
        lastNameKana: body.last_name_kana,
        firstNameKana: body.first_name_kana,
      }),
  );
  return input;
}

const registrationRoutes = new Hono<AppEnv>()
  .post('/users/registration/validate', registrationDocs.validate, async (c) => {
    const input = await registrationInput(await readJson(c));
    return c.json({ user: profileDto(input) });
  })
  .post('/users/registration', registrationDocs.register, async (c) => {
    const input = await registrationInput(await readJson(c));
    await c.var.deps.rateLimit.hit(LIMITS.registrationsPerAddress, networkOf(c));
    // A new address gets a verification mail, a taken one a notice to its owner: mail either way.
    await c.var.deps.rateLimit.hit(LIMITS.mailPerRecipient, input.email);
    await register(c.var.deps.orm, input);
    return c.json({ message: '確認メールを送信しました。メールに記載のリンクを開いて登録を完了してください。' });
  })
  .post('/users/registration/resend', registrationDocs.resend, async (c) => {
    const { email } = await jsonInput(c, EmailOnlyInput);
    await limitMail(c, email);
    await requestVerificationEmail(c.var.deps.orm, email);
    return c.json({ message: SENT_IF_EXISTS });
  })
  .get('/users/registration/verify/:token', registrationDocs.verify, async (c) => {
    const result = await verifyEmail(c.var.deps.orm, c.req.param('token'));
    return c.redirect(
      result === 'verified' ? '/users/registration/email-verified' : `/users/registration/email-verify-failed?reason=${result}`,
      302,
    );
  })
  .get('/users/email-change/verify/:token', registrationDocs.verifyEmailChange, async (c) => {
    const result = await confirmEmailChange(c.var.deps.orm, c.req.param('token'));
    return c.redirect(
      result === 'changed'
        ? '/users/registration/email-verified?change=1'
        : `/users/registration/email-verify-failed?change=1&reason=${result}`,
      302,
    );
  });

/** Uuids: `/users/registration` can never be taken for a user, whatever the mounting order. */
const USER = ':id{[0-9a-fA-F-]+}';

const userRoutes = new Hono<AppEnv>()
  .get('/users', userDocs.search, permit('members:read'), async (c) => {
    const query = queryInput(c, UserSearchQuery);
    return c.json(
      await searchUsers(
        c.var.deps.orm,
        {
          ...query,
          name: query.name || undefined,
          email: query.email || undefined,
          affiliations: typeof query.affiliations === 'number' ? query.affiliations : undefined,
          createdFrom: query.created_from || undefined,
          createdTo: query.created_to || undefined,
        },
        c.var.deps.changes,
      ),
    );
  })
  // The member CSV (the list's search and order): a GET like the other downloads, audited and limited.
  .get('/users/export.csv', userDocs.exportCsv, permit('members:export'), async (c) => {
    const query = queryInput(c, UserExportQuery);
    await c.var.deps.rateLimit.hit(LIMITS.memberCsvPerAdmin, signedInUser(c).id);
    const file = await openMemberCsv(
      c.var.deps.orm,
      actorOf(c),
      {
        name: query.name || undefined,
        email: query.email || undefined,
        affiliations: typeof query.affiliations === 'number' ? query.affiliations : undefined,
        sort: query.sort,
        encoding: query.encoding,
      },
      c.var.log,
    );
    return c.body(file.stream, 200, {
      'Content-Type': file.contentType,
      'Content-Disposition': file.disposition,
      'X-Row-Count': String(file.rows),
    });
  })
  .put(`/users/${USER}/password/force`, userDocs.forcePassword, permit('members:set-password'), async (c) => {
    const input = await jsonInput(c, NewPasswordPairInput);
    await forcePassword(c.var.deps.orm, actorOf(c), c.req.param('id'), input.new_password);
    return c.json({ message: 'パスワードを変更しました。このユーザーはすべての端末でログアウトされました。' });
  })
  .put(`/users/${USER}/role`, userDocs.role, permit('members:set-role'), async (c) => {
    const { role } = await jsonInput(c, RoleInput);
    await setRole(c.var.deps.orm, actorOf(c), c.req.param('id'), role);
    return c.json({
      user: await getUser(c.var.deps.orm, c.req.param('id')),
      message: `役割を「${ROLE_LABELS[role]}」にしました。このユーザーはすべての端末でログアウトされました。`,
    });
  })
  .get(`/users/${USER}/mails`, userDocs.mails, permit('members:read'), async (c) => {
    const paging = queryInput(c, PageQuery);
    return c.json(await userMails(c.var.deps.orm, c.req.param('id'), paging));
  })
  .post(`/users/${USER}/verification-mail`, userDocs.verificationMail, permit('members:mail'), async (c) => {
    const { email } = await resendVerificationMail(c.var.deps.orm, actorOf(c), c.req.param('id'), (recipient) =>
      limitMail(c, recipient),
    );
    return c.json({ message: `${email} に確認メールを送信しました。届くまで数分かかることがあります。` });
  })
  .delete(`/users/${USER}/force`, userDocs.forceDelete, permit('members:delete'), async (c) => {
    await forceDelete(c.var.deps.orm, actorOf(c), c.req.param('id'));
    return c.json({ message: 'ユーザーを削除しました。購入履歴は経理のために残ります。' });
  })
  .get(`/users/${USER}`, userDocs.show, permitSelfOr('members:read'), async (c) =>
    c.json({ user: await getUser(c.var.deps.orm, c.req.param('id')) }),
  )
  .post(`/users/${USER}`, userDocs.validateEdit, permitSelfOr('members:update'), async (c) => {
    const input = parseInputs(await readJson(c), ProfileInput, EditVersionInput);
    // 404 before a confirm screen for nobody, 409 before one for an edit already overtaken.
    await checkEditable(c.var.deps.orm, c.req.param('id'), input.updated_at);
    return c.json({ user: profileDto(input) });
  })
  .put(`/users/${USER}`, userDocs.edit, permitSelfOr('members:update'), async (c) => {
    const body = await readJson(c);
    const input = parseInputs(body, ProfileInput, EditVersionInput);
    const me = signedInUser(c);
    const byAdmin = isStaff(me) ? actorOf(c) : null;
    // One's own address, administrators' included: a stolen session must not move the account to
    // another mailbox (and reset its password there). Another member's address is an administrator's call.
    if (me.id === c.req.param('id') && input.email !== me.email) {
      const { current_password } = parseInput(CurrentPasswordInput, body);
      if (!current_password) throw validationError({ current_password: [PASSWORD_FOR_EMAIL_CHANGE] }, PASSWORD_FOR_EMAIL_CHANGE);
      await reauthenticate(c, me, current_password, 'current_password');
      // …and, where enrolled, with the second factor too (ASVS V7.5.1).
      if (me.twoFactorEnabled) {
        const { code } = parseInput(TwoFactorCodeInput, { code: (body as { code?: unknown }).code });
        await c.var.deps.rateLimit.hit(LIMITS.passwordChangesPerMember, me.id);
        await checkCode(c, code);
      }
      await c.var.deps.rateLimit.hit(LIMITS.emailChangesPerMember, me.id);
      await c.var.deps.rateLimit.hit(LIMITS.mailPerRecipient, input.email);
    }
    const { emailChangePending, emailChanged } = await updateProfile(c.var.deps.orm, c.req.param('id'), input, byAdmin);
    const user = await getUser(c.var.deps.orm, c.req.param('id'));
    return c.json({
      user,
      message: emailChangePending
        ? '会員情報を更新しました。新しいメールアドレスに確認メールを送信しました。確認が済むとメールアドレスが変更されます。'
        : emailChanged
          ? '会員情報を更新しました。メールアドレスはすぐに変更され、新旧のメールアドレスにお知らせを送信しました。'
          : '会員情報を更新しました。',
    });
  })
  .put(`/users/${USER}/password`, userDocs.password, requireUser, async (c) => {
    const me = signedInUser(c);
    if (me.id !== c.req.param('id')) throw new AppError('forbidden');
    const input = parseInputs(await readJson(c), OldPasswordInput, NewPasswordPairInput);
    await c.var.deps.rateLimit.hit(LIMITS.passwordChangesPerMember, me.id);
    await reauthenticate(c, me, input.old_password, 'old_password');
    await changePassword(c.var.deps.orm, me.id, me.sessionToken, input);
    return c.json({ message: 'パスワードを変更しました。' });
  })
  .post(`/users/${USER}/withdrawal`, userDocs.withdrawal, requireUser, async (c) => {
    const me = signedInUser(c);
    if (me.id !== c.req.param('id')) throw new AppError('forbidden');
    if (hasStaffRole(me)) throw new AppError('forbidden', ADMIN_CANNOT_WITHDRAW);
    const { password } = await jsonInput(c, WithdrawalInput);
    // Another way to try current passwords: the password form's limit, shared.
    await c.var.deps.rateLimit.hit(LIMITS.passwordChangesPerMember, me.id);
    await withdraw(c.var.deps.orm, me.id, password);
    const res = c.json({
      message: '退会の手続きが完了しました。ご登録のメールアドレスにお知らせを送信しました。ご利用ありがとうございました。',
    });
    // The sessions are gone already; this also clears this browser's cookie (and so its CSRF token).
    try {
      const { headers } = await c.var.deps.auth.api.signOut({ headers: c.req.raw.headers, returnHeaders: true });
      forwardCookies(headers, res.headers);
    } catch {
      // Nothing to sign out: the account is gone either way.
    }
    return res;
  });

export const accountRoutes = new Hono<AppEnv>()
  .route('/', authRoutes)
  .route('/', signInStepRoutes)
  .route('/', passkeySignInRoutes)
  .route('/', registrationRoutes)
  .route('/', userNoteRoutes)
  .route('/', userRoutes)
  .route('/', sessionRoutes)
  .route('/', twoFactorRoutes)
  .route('/', twoFactorUnlockRoutes)
  .route('/', passkeyRoutes);
