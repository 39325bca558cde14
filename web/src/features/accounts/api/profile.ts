import { checkInputMessage } from '../../../../../src/lib/field-labels';
import { ApiError, api, INVALID_INPUT_MESSAGE } from '../../../lib/api';

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

export interface Member {
  id: string;
  email: string;
  last_name: string;
  first_name: string;
  affiliations: number | null;
  affiliation_name: string;
  affiliation_other: string | null;
  distribution: boolean;
  role: string;
  email_verified: boolean;
  pending_email?: string | null;
  /** The version an edit sends back: saving over a newer one answers 409. */
  updated_at: string;
}

/** What the profile form holds (strings, as inputs give them). */
export interface ProfileValues {
  email: string;
  email_confirmation: string;
  last_name: string;
  first_name: string;
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
export function checkAffiliationLocally(values: ProfileValues): ApiError | null {
  if (values.affiliations === AFFILIATION_OTHER && values.affiliation_other.trim() === '') {
    const errors = { affiliation_other: 'その他の所属を入力してください' };
    return new ApiError(422, checkInputMessage(Object.keys(errors)), errors, {
      message: INVALID_INPUT_MESSAGE,
      errors: { affiliation_other: [errors.affiliation_other] },
    });
  }
  return null;
}

/** Runs the local rule, then the server's validate call. */
export async function validateProfile(path: string, body: Record<string, unknown>, values: ProfileValues): Promise<void> {
  const local = checkAffiliationLocally(values);
  if (local) throw local;
  await api(path, { method: 'POST', body });
}
