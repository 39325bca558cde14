import * as v from 'valibot';
import { rules } from '../../http/validate.ts';
import { printable } from '../../lib/printable-text.ts';

/** The kinds of question the form offers; a withdrawn member's receipt has its own. */
export const CONTACT_CATEGORIES = [
  'ご購入・お支払いについて',
  '領収書・見積書・請求書について',
  '領収書の再発行（退会済みの方）',
  'アカウント・ログインについて',
  'メールが届かない',
  '個人情報の開示等の請求',
  'その他',
] as const;

export const MESSAGE_MAX = 2000;

/** Single-line fields refuse line breaks and controls (printable): nothing can become a mail header. */
export const ContactInput = v.object({
  name: v.pipe(v.string('お名前を入力してください。'), printable('お名前'), rules.requiredString('お名前', 100)),
  email: rules.email(),
  category: v.picklist(CONTACT_CATEGORIES, 'お問い合わせの種類を選択してください。'),
  order_number: v.optional(
    v.nullable(
      v.pipe(
        v.string('ご注文番号は文字列で入力してください。'),
        printable('ご注文番号'),
        v.trim(),
        v.maxLength(40, 'ご注文番号は40文字以内で入力してください。'),
        v.transform((text) => text || null),
      ),
    ),
  ),
  message: v.pipe(
    v.string('お問い合わせ内容を入力してください。'),
    printable('お問い合わせ内容', { multiline: true }),
    rules.requiredString('お問い合わせ内容', MESSAGE_MAX),
  ),
  /** Issued with the form (GET /api/contact/form): when it was opened, signed. */
  form_token: v.optional(v.string(), ''),
  /** Hidden from people; a bot fills it. */
  website: v.optional(v.string(), ''),
});
export type ContactInput = v.InferOutput<typeof ContactInput>;
