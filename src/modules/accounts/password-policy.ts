import { createRequire } from 'node:module';
import type { dictionary as CommonDictionary } from '@zxcvbn-ts/language-common';
import { validationError } from '../../http/errors.ts';
import { loadPasswordRater, type PasswordOwnerDetails, passwordContextParts, strongEnough } from '../../lib/password-strength.ts';

/**
 * New passwords to ASVS 5.0 V6.2 (docs/decisions/0029-asvs-hardening.md): the 10,000 most common, the
 * owner's own details (after NFKC, without case), and what zxcvbn-ts scores below 2, as the SPA's meter.
 */
const COMMON_PASSWORD_COUNT = 10_000;

let common: Set<string> | undefined;
/** Required (not imported) on the first check, synchronously for the schemas: the list is large. */
function commonPasswords(): Set<string> {
  if (!common) {
    const { dictionary } = createRequire(import.meta.url)('@zxcvbn-ts/language-common') as {
      dictionary: typeof CommonDictionary;
    };
    common = new Set(dictionary['passwords-common'].slice(0, COMMON_PASSWORD_COUNT).map((p) => p.toLowerCase()));
  }
  return common;
}

const fold = (text: string) => text.normalize('NFKC').toLowerCase();

export const COMMON_PASSWORD_MESSAGE = (label: string) =>
  `${label}はよく使われていて推測されやすいため使用できません。別のパスワードを入力してください。`;
const EMAIL_IN_PASSWORD_MESSAGE = (label: string) => `${label}にメールアドレスの一部を含めることはできません。`;
const NAME_IN_PASSWORD_MESSAGE = (label: string) => `${label}にお名前（姓・名）を含めることはできません。`;
const WEAK_PASSWORD_MESSAGE = (label: string) =>
  `${label}は単純で推測されやすいため使用できません。関係のない単語を組み合わせる、長くするなどしてください。`;

export function isCommonPassword(password: string): boolean {
  return commonPasswords().has(fold(password)) || commonPasswords().has(password.toLowerCase());
}

export type PasswordOwner = PasswordOwnerDetails;

const text = (value: unknown) => (typeof value === 'string' ? fold(value.trim()) : '');

function personalPasswordProblem(password: string, owner: PasswordOwner, label = 'パスワード'): string | null {
  const folded = fold(password);
  const local = text(owner.email).split('@')[0] ?? '';
  if (local.length >= 3 && folded.includes(local)) return EMAIL_IN_PASSWORD_MESSAGE(label);
  const parts = passwordContextParts(owner);
  if (parts.email.some((part) => folded.includes(part))) return EMAIL_IN_PASSWORD_MESSAGE(label);
  for (const name of [text(owner.lastName), text(owner.firstName)]) {
    if (name.length >= 2 && folded.includes(name)) return NAME_IN_PASSWORD_MESSAGE(label);
  }
  if (parts.name.some((part) => folded.includes(part))) return NAME_IN_PASSWORD_MESSAGE(label);
  return null;
}

async function weakPasswordProblem(password: string, owner: PasswordOwner, label = 'パスワード'): Promise<string | null> {
  return strongEnough(await loadPasswordRater(), password, owner) ? null : WEAK_PASSWORD_MESSAGE(label);
}

export async function newPasswordProblem(password: string, owner: PasswordOwner, label = 'パスワード'): Promise<string | null> {
  if (isCommonPassword(password)) return COMMON_PASSWORD_MESSAGE(label);
  return personalPasswordProblem(password, owner, label) ?? (await weakPasswordProblem(password, owner, label));
}

/** A password that already fails its own rules is left to the schema, so the field gets one message. */
export async function assertPasswordFitsOwner(
  field: string,
  password: unknown,
  owner: PasswordOwner,
  label?: string,
): Promise<void> {
  if (typeof password !== 'string' || password.length < 8 || password.length > 72 || isCommonPassword(password)) return;
  const named = label ?? (field === 'password' ? 'パスワード' : '新しいパスワード');
  const problem = personalPasswordProblem(password, owner, named) ?? (await weakPasswordProblem(password, owner, named));
  if (problem) throw validationError({ [field]: [problem] });
}
