import * as v from 'valibot';
import { MessageAnswer, operation, pathIds } from '../../http/openapi.ts';
import { MailPageAnswer } from '../mail/index.ts';
import {
  LoginAnswer,
  OneUserAnswer,
  PasskeyOptionsAnswer,
  PasskeysAnswer,
  PasskeysWithMessageAnswer,
  ProfileAnswer,
  ResetLinkAnswer,
  SessionsAnswer,
  SignInAnswer,
  TwoFactorStatusAnswer,
  UserPageAnswer,
  UserWithMessageAnswer,
} from './responses.ts';
import {
  CurrentPasswordInput,
  EditVersionInput,
  EmailOnlyInput,
  LoginInput,
  NewPasswordPairInput,
  OldPasswordInput,
  PageQuery,
  PasskeyLoginInput,
  PasskeyOptionsInput,
  PasskeyRegistrationInput,
  PasswordPairInput,
  ProfileInput,
  ResetTokenInput,
  RoleInput,
  TwoFactorCodeInput,
  TwoFactorDisableInput,
  TwoFactorLoginInput,
  TwoFactorPasswordInput,
  TwoFactorUnlockInput,
  UserExportQuery,
  UserSearchQuery,
  WithdrawalInput,
} from './schemas.ts';

/** The accounts module's operations in the API document (src/http/openapi.ts). */

const SIGN_IN = ['ログイン'];
const REGISTRATION = ['会員登録'];
const USERS = ['会員'];
const ME = ['自分のアカウント'];
const user = { id: pathIds.uuid };
const RegistrationInput = v.intersect([ProfileInput, PasswordPairInput]);
const CodeIfEnrolled = v.object({ code: v.optional(v.string()) });
const csv = {
  media: 'text/csv',
  description: 'CSV ファイル（UTF-8 BOM 付き、または Shift_JIS）',
  headers: { 'X-Row-Count': '行数' },
};

export const signInDocs = {
  me: operation('get', { summary: 'ログイン中のユーザー', tags: SIGN_IN, access: 'public', answers: { 200: SignInAnswer } }),
  login: operation('post', {
    summary: 'メールアドレスとパスワードでログインする',
    description:
      '二段階認証を使うアカウントは `two_factor_required: true` を返し、セッションは /api/login/two-factor の後にできます。',
    tags: SIGN_IN,
    access: 'public',
    body: LoginInput,
    answers: { 200: LoginAnswer },
    errors: [403, 429],
  }),
  logout: operation('post', { summary: 'ログアウトする', tags: SIGN_IN, access: 'public', answers: { 200: SignInAnswer } }),
  forgotPassword: operation('post', {
    summary: 'パスワード再設定メールを送る',
    description: '登録の有無にかかわらず同じ答えを返します。',
    tags: SIGN_IN,
    access: 'public',
    body: EmailOnlyInput,
    answers: { 200: MessageAnswer },
    errors: [429],
  }),
  resetLink: operation('get', {
    summary: 'パスワード再設定リンクが使えるか',
    tags: SIGN_IN,
    access: 'public',
    path: { token: pathIds.token },
    answers: { 200: ResetLinkAnswer },
  }),
  resetPassword: operation('post', {
    summary: 'パスワードを再設定する',
    tags: SIGN_IN,
    access: 'public',
    body: v.intersect([ResetTokenInput, PasswordPairInput]),
    answers: { 200: MessageAnswer },
    errors: [429],
  }),
  twoFactor: operation('post', {
    summary: '二段階認証の確認コードでログインを完了する',
    tags: SIGN_IN,
    access: 'public',
    body: TwoFactorLoginInput,
    answers: { 200: SignInAnswer },
    errors: [401, 403, 429],
  }),
  passkeyOptions: operation('post', {
    summary: 'パスキーでログインするためのオプション',
    tags: SIGN_IN,
    access: 'public',
    answers: { 200: PasskeyOptionsAnswer },
    errors: [429],
  }),
  passkey: operation('post', {
    summary: 'パスキーでログインする',
    tags: SIGN_IN,
    access: 'public',
    body: PasskeyLoginInput,
    answers: { 200: SignInAnswer },
    errors: [401, 403, 429],
  }),
};

export const registrationDocs = {
  validate: operation('post', {
    summary: '会員登録の入力を確認する',
    tags: REGISTRATION,
    access: 'public',
    body: RegistrationInput,
    answers: { 200: ProfileAnswer },
  }),
  register: operation('post', {
    summary: '会員登録する（確認メールを送る）',
    tags: REGISTRATION,
    access: 'public',
    body: RegistrationInput,
    answers: { 200: MessageAnswer },
    errors: [429],
  }),
  resend: operation('post', {
    summary: '確認メールを再送する',
    tags: REGISTRATION,
    access: 'public',
    body: EmailOnlyInput,
    answers: { 200: MessageAnswer },
    errors: [429],
  }),
  verify: operation('get', {
    summary: 'メールアドレスを確認する（メールのリンク）',
    tags: REGISTRATION,
    access: 'public',
    path: { token: pathIds.token },
    answers: { 302: { redirect: '確認済み、または確認できなかった画面へ移動します。' } },
  }),
  verifyEmailChange: operation('get', {
    summary: '新しいメールアドレスを確認する（メールのリンク）',
    tags: REGISTRATION,
    access: 'public',
    path: { token: pathIds.token },
    answers: { 302: { redirect: '変更済み、または変更できなかった画面へ移動します。' } },
  }),
};

export const userDocs = {
  search: operation('get', {
    summary: '会員を検索する',
    tags: USERS,
    access: 'admin',
    query: UserSearchQuery,
    answers: { 200: UserPageAnswer },
  }),
  exportCsv: operation('get', {
    summary: '会員一覧の CSV',
    tags: USERS,
    access: 'admin',
    query: UserExportQuery,
    answers: { 200: csv },
    errors: [429],
  }),
  forcePassword: operation('put', {
    summary: '会員のパスワードを強制変更する',
    tags: USERS,
    access: 'admin',
    path: user,
    body: NewPasswordPairInput,
    answers: { 200: MessageAnswer },
  }),
  role: operation('put', {
    summary: '会員の権限を変更する',
    tags: USERS,
    access: 'admin',
    path: user,
    body: RoleInput,
    answers: { 200: UserWithMessageAnswer },
    errors: [409],
  }),
  mails: operation('get', {
    summary: '会員に送ったメール',
    tags: USERS,
    access: 'admin',
    path: user,
    query: PageQuery,
    answers: { 200: MailPageAnswer },
  }),
  verificationMail: operation('post', {
    summary: '確認メールを送り直す（管理者）',
    tags: USERS,
    access: 'admin',
    path: user,
    answers: { 200: MessageAnswer },
    errors: [409, 429],
  }),
  forceDelete: operation('delete', {
    summary: '会員を強制削除する',
    tags: USERS,
    access: 'admin',
    path: user,
    answers: { 200: MessageAnswer },
    errors: [409],
  }),
  show: operation('get', {
    summary: '会員情報',
    tags: USERS,
    access: 'self-or-admin',
    path: user,
    answers: { 200: OneUserAnswer },
  }),
  validateEdit: operation('post', {
    summary: '会員情報の変更を確認する',
    tags: USERS,
    access: 'self-or-admin',
    path: user,
    body: v.intersect([ProfileInput, EditVersionInput]),
    answers: { 200: ProfileAnswer },
    errors: [409],
  }),
  edit: operation('put', {
    summary: '会員情報を変更する',
    description: '本人がメールアドレスを変えるときは current_password（二段階認証を使う場合は code も）が必要です。',
    tags: USERS,
    access: 'self-or-admin',
    path: user,
    body: v.intersect([ProfileInput, EditVersionInput, CurrentPasswordInput, CodeIfEnrolled]),
    answers: { 200: UserWithMessageAnswer },
    errors: [409, 429],
  }),
  password: operation('put', {
    summary: '自分のパスワードを変更する',
    tags: USERS,
    access: 'member',
    path: user,
    body: v.intersect([OldPasswordInput, NewPasswordPairInput]),
    answers: { 200: MessageAnswer },
    errors: [403, 429],
  }),
  withdrawal: operation('post', {
    summary: '退会する',
    tags: USERS,
    access: 'member',
    path: user,
    body: WithdrawalInput,
    answers: { 200: MessageAnswer },
    errors: [403, 429],
  }),
};

export const meDocs = {
  sessions: operation('get', { summary: 'ログイン中の端末', tags: ME, access: 'member', answers: { 200: SessionsAnswer } }),
  endSession: operation('delete', {
    summary: '端末をログアウトさせる',
    tags: ME,
    access: 'member',
    path: { id: pathIds.uuid },
    answers: { 200: v.object({ message: v.string(), current: v.boolean() }) },
  }),
  endOtherSessions: operation('delete', {
    summary: 'ほかの端末をすべてログアウトさせる',
    tags: ME,
    access: 'member',
    answers: { 200: v.object({ message: v.string(), ended: v.number() }) },
  }),
  twoFactor: operation('get', {
    summary: '二段階認証の状態',
    tags: ME,
    access: 'member',
    answers: { 200: TwoFactorStatusAnswer },
  }),
  setup: operation('post', {
    summary: '二段階認証の設定を始める',
    tags: ME,
    access: 'member',
    body: TwoFactorPasswordInput,
    answers: { 200: v.object({ totp_uri: v.string(), secret: v.string() }) },
    errors: [409, 429],
  }),
  enable: operation('post', {
    summary: '二段階認証を有効にする',
    tags: ME,
    access: 'member',
    body: TwoFactorCodeInput,
    answers: { 200: v.object({ recovery_codes: v.array(v.string()), message: v.string() }) },
    errors: [409, 429],
  }),
  recoveryCodes: operation('post', {
    summary: 'リカバリーコードを作り直す',
    tags: ME,
    access: 'member',
    body: TwoFactorPasswordInput,
    answers: { 200: v.object({ recovery_codes: v.array(v.string()), message: v.string() }) },
    errors: [409, 429],
  }),
  disable: operation('delete', {
    summary: '二段階認証を無効にする',
    tags: ME,
    access: 'member',
    body: TwoFactorDisableInput,
    answers: { 200: MessageAnswer },
    errors: [409, 429],
  }),
  passkeys: operation('get', { summary: '登録済みのパスキー', tags: ME, access: 'member', answers: { 200: PasskeysAnswer } }),
  passkeyOptions: operation('post', {
    summary: 'パスキーを登録するためのオプション（現在のパスワードと、二段階認証が有効なら確認コードで本人確認）',
    tags: ME,
    access: 'member',
    body: PasskeyOptionsInput,
    answers: { 200: PasskeyOptionsAnswer },
    errors: [403, 429],
  }),
  addPasskey: operation('post', {
    summary: 'パスキーを登録する',
    tags: ME,
    access: 'member',
    body: PasskeyRegistrationInput,
    answers: { 200: PasskeysWithMessageAnswer },
    errors: [403],
  }),
  removePasskey: operation('delete', {
    summary: 'パスキーを削除する',
    tags: ME,
    access: 'member',
    path: { id: pathIds.uuid },
    answers: { 200: PasskeysWithMessageAnswer },
  }),
};

/** The mailed link that allows two-factor codes again after three lock-outs in a row. */
export const unlockDocs = {
  check: operation('get', {
    summary: '確認コードによるログインの再開リンクの状態',
    tags: SIGN_IN,
    access: 'public',
    path: { token: pathIds.token },
    answers: {
      200: v.object({ state: v.picklist(['valid', 'invalid', 'expired', 'used']), message: v.nullable(v.string()) }),
    },
  }),
  unlock: operation('post', {
    summary: '確認コードによるログインを再開する',
    tags: SIGN_IN,
    access: 'public',
    body: TwoFactorUnlockInput,
    answers: { 200: MessageAnswer },
    errors: [404, 409, 429],
  }),
};
