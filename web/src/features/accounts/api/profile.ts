import { checkInputMessage } from '../../../../../src/lib/field-labels';
import { ApiError, api, INVALID_INPUT_MESSAGE, type Schema } from '../../../lib/api';

export const AFFILIATIONS: { value: string; label: string }[] = [
  { value: '1', label: '自衛隊' },
  { value: '2', label: '警察関係' },
  { value: '3', label: '海上保安庁' },
  { value: '4', label: '消防・救急' },
  { value: '5', label: '医療機関' },
  { value: '6', label: 'その他' },
];
export const AFFILIATION_OTHER = '6';

export const affiliationLabel = (code: number | string | null | undefined) =>
  AFFILIATIONS.find((a) => a.value === String(code ?? ''))?.label ?? '未設定';

/** A member or administrator as the API shows them. */
export type Member = Schema<'User'>;

/** What the profile form holds (strings, as inputs give them). */
export interface ProfileValues {
  email: string;
  email_confirmation: string;
  last_name: string;
  first_name: string;
  last_name_kana: string;
  first_name_kana: string;
  affiliations: string;
  affiliation_name: string;
  affiliation_other: string;
  distribution: boolean;
}

export interface PasswordValues {
  password: string;
  password_confirmation: string;
}

export const emptyProfile: ProfileValues = {
  email: '',
  email_confirmation: '',
  last_name: '',
  first_name: '',
  last_name_kana: '',
  first_name_kana: '',
  affiliations: '',
  affiliation_name: '',
  affiliation_other: '',
  distribution: true,
};

export function profileOf(member: Member): ProfileValues {
  return {
    email: member.email,
    email_confirmation: member.email,
    last_name: member.last_name,
    first_name: member.first_name,
    last_name_kana: member.last_name_kana ?? '',
    first_name_kana: member.first_name_kana ?? '',
    affiliations: member.affiliations ? String(member.affiliations) : '',
    affiliation_name: member.affiliation_name,
    affiliation_other: member.affiliation_other ?? '',
    distribution: member.distribution,
  };
}

/** The payload the API takes (the seed's field names). */
export function profilePayload(values: ProfileValues) {
  return {
    ...values,
    affiliations: values.affiliations === '' ? null : Number(values.affiliations),
    affiliation_other: values.affiliations === AFFILIATION_OTHER ? values.affiliation_other : null,
  };
}

/**
 * The one rule the client checks itself (seed §5): affiliation 6 without its text makes no server
 * call and is treated as a 422 with the seed's message and field error (kept as that result's body).
 * What the form shows is the field's message under the field and, at the top, what to fix — the
 * server's 422 summary, 「入力内容を確認してください。（その他の所属）」.
 */
function checkAffiliationLocally(values: ProfileValues): ApiError | null {
  if (values.affiliations === AFFILIATION_OTHER && values.affiliation_other.trim() === '') {
    const errors = { affiliation_other: 'その他の所属を入力してください' };
    return new ApiError(422, checkInputMessage(Object.keys(errors)), errors, {
      message: INVALID_INPUT_MESSAGE,
      errors: { affiliation_other: [errors.affiliation_other] },
    });
  }
  return null;
}

/** 「山田 太郎」, with 「（ヤマダ タロウ）」 when the member has given their フリガナ. */
export function nameWithKana(member: Pick<Member, 'last_name' | 'first_name' | 'last_name_kana' | 'first_name_kana'>) {
  const name = `${member.last_name} ${member.first_name}`.trim();
  const kana = `${member.last_name_kana ?? ''} ${member.first_name_kana ?? ''}`.trim();
  return kana ? `${name}（${kana}）` : name;
}

/**
 * The member's own forms ask for フリガナ (the API takes it as optional, for older clients): empty
 * セイ/メイ are reported with the server's other messages, in one answer.
 */
function missingKana(values: ProfileValues): Record<string, string> {
  const missing: Record<string, string> = {};
  if (!values.last_name_kana.trim()) missing.last_name_kana = 'セイ（フリガナ）を入力してください。';
  if (!values.first_name_kana.trim()) missing.first_name_kana = 'メイ（フリガナ）を入力してください。';
  return missing;
}

/**
 * Runs the local rule, then the server's validate call (and, on the member's forms, the フリガナ check).
 * Answers the values as the server will save them: フリガナ typed in hiragana or half-width comes back
 * in 全角カタカナ, so the confirm screen shows what is registered.
 */
export async function validateProfile(
  path: string,
  body: Record<string, unknown>,
  values: ProfileValues,
  options: { requireKana?: boolean } = {},
): Promise<ProfileValues> {
  const local = checkAffiliationLocally(values);
  if (local) throw local;
  const missing = options.requireKana ? missingKana(values) : {};
  const hasMissing = Object.keys(missing).length > 0;
  let checked: { user?: Partial<Pick<Member, 'last_name_kana' | 'first_name_kana'>> } | undefined;
  try {
    checked = await api(path, { method: 'POST', body });
  } catch (error) {
    if (hasMissing && error instanceof ApiError && error.status === 422) {
      const errors = { ...missing, ...error.errors };
      throw new ApiError(422, checkInputMessage(Object.keys(errors)), errors, error.body);
    }
    throw error;
  }
  if (hasMissing) throw new ApiError(422, checkInputMessage(Object.keys(missing)), missing);
  return {
    ...values,
    last_name_kana: checked?.user?.last_name_kana ?? values.last_name_kana.trim(),
    first_name_kana: checked?.user?.first_name_kana ?? values.first_name_kana.trim(),
  };
}
