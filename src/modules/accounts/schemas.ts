import * as v from 'valibot';
import { paging, rules } from '../../http/validate.ts';
import { printable } from '../../lib/printable-text.ts';
import { AFFILIATION_OTHER } from './affiliations.ts';
import { KANA, KANA_MESSAGE, normaliseKana } from './kana.ts';
import { COMMON_PASSWORD_MESSAGE, isCommonPassword } from './password-policy.ts';

export const LoginInput = v.object({
  email: rules.email(),
  password: rules.enteredPassword(),
});

const AFFILIATION_MESSAGE = '所属を選択してください。';
const affiliation = v.pipe(
  v.union([v.number(), v.pipe(v.string(), v.trim(), v.regex(/^\d+$/), v.transform(Number))], AFFILIATION_MESSAGE),
  v.integer(AFFILIATION_MESSAGE),
  v.minValue(1, AFFILIATION_MESSAGE),
  v.maxValue(6, AFFILIATION_MESSAGE),
);

/**
 * Names end up on receipts (PDF), in the CSV for the training system and in e-mails: printable text
 * only (src/lib/printable-text.ts), checked before trim, so "山田\r\n" is refused rather than silently cut.
 */
const name = (label: string, max: number) =>
  v.pipe(v.string(`${label}を入力してください。`), printable(label), rules.requiredString(label, max));

/**
 * フリガナ: optional on the wire (seed clients keep working; the SPA asks for it). Absent: unchanged by
 * an edit; null or empty: none. Normalised to 全角カタカナ (kana.ts) before it is checked.
 */
const kana = (label: string) =>
  v.optional(
    v.nullable(
      v.pipe(
        v.string(`${label}は文字列で入力してください。`),
        printable(label),
        v.transform(normaliseKana),
        v.maxLength(50, `${label}は50文字以内で入力してください。`),
        v.check((text) => text === '' || KANA.test(text), KANA_MESSAGE(label)),
        v.transform((text) => text || null),
      ),
    ),
  );

const profileEntries = {
  email: rules.email(),
  email_confirmation: rules.email('メールアドレス（確認）'),
  last_name: name('姓', 50),
  first_name: name('名', 50),
  last_name_kana: kana('セイ（フリガナ）'),
  first_name_kana: kana('メイ（フリガナ）'),
  affiliations: affiliation,
  affiliation_name: name('所属名', 100),
  affiliation_other: v.optional(
    v.nullable(v.pipe(v.string('その他の所属は文字列で入力してください。'), printable('その他の所属'), v.trim())),
  ),
  distribution: v.optional(v.boolean('配信の希望は「はい」か「いいえ」で選択してください。'), true),
};

/** The profile fields of registration and edit, with the seed's cross-field rules. */
export const ProfileInput = v.pipe(
  v.object(profileEntries),
  v.forward(
    v.partialCheck(
      [['email'], ['email_confirmation']],
      (input) => input.email === input.email_confirmation,
      'メールアドレス（確認）がメールアドレスと一致しません。',
    ),
    ['email_confirmation'],
  ),
  v.forward(
    v.partialCheck(
      [['affiliations'], ['affiliation_other']],
      (input) => input.affiliations !== AFFILIATION_OTHER || Boolean(input.affiliation_other),
      'その他の所属を入力してください',
    ),
    ['affiliation_other'],
  ),
  v.forward(
    v.partialCheck(
      [['affiliations'], ['affiliation_other']],
      (input) => input.affiliations !== AFFILIATION_OTHER || (input.affiliation_other ?? '').length <= 100,
      'その他の所属は100文字以内で入力してください。',
    ),
    ['affiliation_other'],
  ),
  // The "other" text only belongs to affiliation 6.
  v.transform((input) => ({
    ...input,
    affiliation_other: input.affiliations === AFFILIATION_OTHER ? (input.affiliation_other ?? null) : null,
  })),
);

/** A new password: 8..72 characters and none of the common ones (its owner's details: password-policy.ts). */
const newPassword = (label = 'パスワード') =>
  v.pipe(
    rules.password(label),
    v.check((password) => !isCommonPassword(password), COMMON_PASSWORD_MESSAGE(label)),
  );

/** A new password and its confirmation. */
export const PasswordPairInput = v.pipe(
  v.object({
    password: newPassword(),
    password_confirmation: v.string('パスワード（確認）を入力してください。'),
  }),
  v.forward(
    v.partialCheck(
      [['password'], ['password_confirmation']],
      (input) => input.password === input.password_confirmation,
      'パスワード（確認）がパスワードと一致しません。',
    ),
    ['password_confirmation'],
  ),
);

export const EmailOnlyInput = v.object({ email: rules.email() });

/** Reset-password fields besides the new password pair (PasswordPairInput). */
export const ResetTokenInput = v.object({
  email: rules.email(),
  token: v.pipe(
    v.string('リンクが正しくありません。'),
    v.minLength(1, 'リンクが正しくありません。'),
    v.maxLength(200, 'リンクが正しくありません。'),
  ),
});

/** A new password and its confirmation, as the password-change calls name them. */
export const NewPasswordPairInput = v.pipe(
  v.object({
    new_password: newPassword('新しいパスワード'),
    new_password_confirmation: v.string('新しいパスワード（確認）を入力してください。'),
  }),
  v.forward(
    v.partialCheck(
      [['new_password'], ['new_password_confirmation']],
      (input) => input.new_password === input.new_password_confirmation,
      '新しいパスワード（確認）が新しいパスワードと一致しません。',
    ),
    ['new_password_confirmation'],
  ),
);

/** The member's own change also needs the current password (with NewPasswordPairInput). */
export const OldPasswordInput = v.object({
  old_password: rules.enteredPassword('現在のパスワード'),
});

/** Re-authentication before a member changes their e-mail address (required then, ignored otherwise). */
export const CurrentPasswordInput = v.object({
  current_password: v.optional(rules.enteredPassword('現在のパスワード')),
});

/** 退会 (POST /api/users/{id}/withdrawal): the current password. */
export const WithdrawalInput = v.object({
  password: rules.enteredPassword('現在のパスワード'),
});

/**
 * The version of the user an edit was loaded from (its `updated_at`), sent with the edit and its
 * validate call: a newer version answers 409. Optional on the wire for older clients; the SPA always sends it.
 */
export const EditVersionInput = v.object({
  updated_at: v.optional(
    v.pipe(
      v.string('更新日時の形式が正しくありません。画面を読み込み直してください。'),
      v.isoTimestamp('更新日時の形式が正しくありません。画面を読み込み直してください。'),
    ),
  ),
});

export type ProfileData = v.InferOutput<typeof ProfileInput>;
export type RegistrationData = ProfileData & v.InferOutput<typeof PasswordPairInput>;

/** The administrators' user search (query string). */
export const UserSearchQuery = v.object({
  name: v.optional(v.pipe(v.string(), v.trim(), v.maxLength(50, '氏名は50文字以内で入力してください。'))),
  email: v.optional(v.pipe(v.string(), v.trim(), v.maxLength(254, 'メールアドレスは254文字以内で入力してください。'))),
  affiliations: v.optional(
    v.union(
      [v.literal(''), v.pipe(v.string(), v.regex(/^[1-6]$/, '所属を選択してください。'), v.transform(Number))],
      '所属を選択してください。',
    ),
  ),
  ...paging,
  sort: v.optional(
    v.picklist(['created_at', '-created_at', 'email', '-email', 'name', '-name', 'kana'], '並び順が正しくありません。'),
    '-created_at',
  ),
});

/** GET /api/users/export.csv: the list's search and order, and the file's encoding. */
export const UserExportQuery = v.object({
  ...v.omit(UserSearchQuery, ['page', 'per_page']).entries,
  encoding: v.optional(v.picklist(['utf-8', 'shift_jis'], '文字コードは utf-8 か shift_jis を指定してください。'), 'utf-8'),
});

/** GET /api/users/{id}/mails */
export const PageQuery = v.object({
  ...paging,
});

/** PUT /api/users/{id}/role */
export const RoleInput = v.object({
  role: v.picklist(['admin', 'user'], '権限は admin（管理者）か user（会員）を指定してください。'),
});

const totpCode = v.pipe(
  v.string('確認コードを入力してください。'),
  v.trim(),
  v.transform((code) => code.replace(/[\s-]/g, '').replace(/[０-９]/g, (d) => String.fromCharCode(d.charCodeAt(0) - 0xfee0))),
  v.minLength(1, '確認コードを入力してください。'),
  v.regex(/^\d{6}$/, '確認コードは6桁の数字で入力してください。'),
);
const recoveryCode = v.pipe(
  v.string('リカバリーコードを入力してください。'),
  v.trim(),
  v.minLength(1, 'リカバリーコードを入力してください。'),
  v.maxLength(40, 'リカバリーコードの形式が正しくありません。'),
);

export const TwoFactorPasswordInput = v.object({ password: rules.enteredPassword() });
export const TwoFactorCodeInput = v.object({ code: totpCode });
export const TwoFactorDisableInput = v.object({ password: rules.enteredPassword(), code: totpCode });

/** The second step of sign-in: a code from the authenticator app, or one of the recovery codes. */
export const TwoFactorLoginInput = v.pipe(
  v.object({
    code: v.optional(v.union([totpCode, v.literal('')])),
    recovery_code: v.optional(v.union([recoveryCode, v.literal('')])),
    trust_device: v.optional(v.boolean('「この端末を信頼する」は true か false で指定してください。'), false),
  }),
  v.forward(
    v.check((input) => Boolean(input.code || input.recovery_code), '確認コードを入力してください。'),
    ['code'],
  ),
);

/** A WebAuthn response as the browser gives it (checked by @simplewebauthn/server inside better-auth). */
const PASSKEY_ANSWER = 'パスキーの応答が正しくありません。もう一度お試しください。';
const webauthnResponse = v.looseObject(
  {
    id: v.pipe(v.string(PASSKEY_ANSWER), v.minLength(1, PASSKEY_ANSWER), v.maxLength(2048, PASSKEY_ANSWER)),
    rawId: v.optional(v.string(PASSKEY_ANSWER)),
    type: v.optional(v.string(PASSKEY_ANSWER)),
    response: v.record(v.string(), v.unknown(), PASSKEY_ANSWER),
  },
  PASSKEY_ANSWER,
);
export const PasskeyRegistrationInput = v.object({
  response: webauthnResponse,
  name: v.optional(
    v.pipe(v.string('名前は文字列で入力してください。'), v.trim(), v.maxLength(50, '名前は50文字以内で入力してください。')),
  ),
});
export const PasskeyLoginInput = v.object({ response: webauthnResponse });

/**
 * Re-authentication before a passkey is added: the current password and, with two-factor on, a code
 * (6 digits) or a recovery code, in `code`. Absent ones are the route's 403 `reauthentication_required`.
 */
export const PasskeyOptionsInput = v.object({
  password: v.optional(rules.enteredPassword('現在のパスワード')),
  code: v.optional(
    v.pipe(
      v.string('確認コードを入力してください。'),
      v.trim(),
      v.maxLength(40, '確認コードまたはリカバリーコードの形式が正しくありません。'),
    ),
  ),
});

const LINK_WRONG = 'リンクが正しくありません。';
/** The mailed link that allows two-factor codes again (two-factor-lock.ts). */
export const TwoFactorUnlockInput = v.object({
  token: v.pipe(v.string(LINK_WRONG), v.minLength(1, LINK_WRONG), v.maxLength(200, LINK_WRONG)),
});
