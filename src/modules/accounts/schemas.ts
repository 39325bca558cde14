import * as v from 'valibot';
import { ROLES } from '../../http/access.ts';
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

/** Printable text only, checked before trim, so "山田\r\n" is refused rather than silently cut. */
const name = (label: string, max: number) =>
  v.pipe(v.string(`${label}を入力してください。`), printable(label), rules.requiredString(label, max));

/** Optional on the wire (seed clients); absent: unchanged by an edit; null or empty: none. */
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
  // Left out: registration asks it (checked by default), a profile edit keeps the member's choice.
  distribution: v.optional(v.boolean('配信の希望は「はい」か「いいえ」で選択してください。')),
};

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

const newPassword = (label = 'パスワード') =>
  v.pipe(
    rules.password(label),
    v.check((password) => !isCommonPassword(password), COMMON_PASSWORD_MESSAGE(label)),
  );

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

export const ResetTokenInput = v.object({
  email: rules.email(),
  token: v.pipe(
    v.string('リンクが正しくありません。'),
    v.minLength(1, 'リンクが正しくありません。'),
    v.maxLength(200, 'リンクが正しくありません。'),
  ),
});

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

export const OldPasswordInput = v.object({
  old_password: rules.enteredPassword('現在のパスワード'),
});

export const CurrentPasswordInput = v.object({
  current_password: v.optional(rules.enteredPassword('現在のパスワード')),
});

export const WithdrawalInput = v.object({
  password: rules.enteredPassword('現在のパスワード'),
});

/** A newer version answers 409; optional on the wire for older clients. */
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

export const UserSearchQuery = v.object({
  name: v.optional(v.pipe(v.string(), v.trim(), v.maxLength(50, '氏名は50文字以内で入力してください。'))),
  email: v.optional(v.pipe(v.string(), v.trim(), v.maxLength(254, 'メールアドレスは254文字以内で入力してください。'))),
  affiliations: v.optional(
    v.union(
      [v.literal(''), v.pipe(v.string(), v.regex(/^[1-6]$/, '所属を選択してください。'), v.transform(Number))],
      '所属を選択してください。',
    ),
  ),
  created_from: v.optional(v.union([v.literal(''), rules.date()], '登録日（から）は YYYY-MM-DD の形式で入力してください。')),
  created_to: v.optional(v.union([v.literal(''), rules.date()], '登録日（まで）は YYYY-MM-DD の形式で入力してください。')),
  ...paging,
  sort: v.optional(
    v.picklist(
      [
        'created_at',
        '-created_at',
        'email',
        '-email',
        'name',
        '-name',
        'kana',
        'purchases',
        '-purchases',
        'paid_total',
        '-paid_total',
        'last_purchase',
        '-last_purchase',
      ],
      '並び順が正しくありません。',
    ),
    '-created_at',
  ),
});

export const UserExportQuery = v.object({
  ...v.omit(UserSearchQuery, ['page', 'per_page']).entries,
  encoding: v.optional(v.picklist(['utf-8', 'shift_jis'], '文字コードは utf-8 か shift_jis を指定してください。'), 'utf-8'),
});

export const PageQuery = v.object({
  ...paging,
});

export const RoleInput = v.object({
  role: v.picklist(
    ROLES,
    '役割は admin（管理者）、operator（運用担当）、viewer（閲覧のみ）、user（一般会員）のいずれかを指定してください。',
  ),
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
export const TwoFactorUnlockInput = v.object({
  token: v.pipe(v.string(LINK_WRONG), v.minLength(1, LINK_WRONG), v.maxLength(200, LINK_WRONG)),
});
