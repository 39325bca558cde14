/**
 * Every kind of e-mail the shop sends, with the name an administrator reads in a member's mail log.
 * `sendOnce` takes only these, so a new kind of mail cannot be sent without a Japanese name.
 */
const MAIL_KINDS = {
  verification: 'メールアドレスの確認',
  'already-registered': '登録済みアドレスへの登録申込のお知らせ',
  'password-reset': 'パスワード再設定のご案内',
  'email-change': '新しいメールアドレスの確認',
  'email-change-notice': 'メールアドレス変更申込のお知らせ（旧アドレス宛）',
  'email-change-attempted': 'メールアドレス利用のお知らせ',
  'email-changed-by-admin': '管理者によるメールアドレス変更（新アドレス宛）',
  'email-changed-by-admin-notice': '管理者によるメールアドレス変更（旧アドレス宛）',
  'sign-in-throttled': 'ログイン制限のお知らせ',
  'password-changed': 'パスワード変更のお知らせ',
  'new-device-sign-in': '新しい端末からのログイン',
  'two-factor-changed': '二段階認証の設定変更のお知らせ',
  'two-factor-locked': '確認コードによるログインの停止',
  withdrawal: '退会手続き完了のお知らせ',
  receipt: 'ご購入のお礼（領収）',
  'receipt-resend': 'ご購入のお礼（再送）',
  'license-registered': 'ライセンス登録完了のお知らせ',
  'refund-notice': '返金のお知らせ',
  'flagged-refund-notice': '返金のお知らせ（購入済み・満席などで売上にしなかった支払い）',
  'konbini-voucher': 'コンビニ払いのお支払い番号のご案内',
  'konbini-reminder': 'コンビニ払いのお支払い期限のお知らせ（前日）',
  'konbini-lapsed': 'コンビニ払いの支払期限切れのお知らせ',
  'bank-transfer-instructions': '銀行振込のお振込先のご案内',
  'bank-transfer-reminder': '銀行振込のお振込期限のお知らせ（2日前）',
  'bank-transfer-lapsed': '銀行振込の振込期限切れのお知らせ',
  'reconciliation-digest': '決済の照合結果のお知らせ（管理者宛）',
  'announcement-test': 'お知らせ配信のテスト送信（管理者宛）',
  'legal-notice-test': '規約改定のお知らせのテスト送信（管理者宛）',
  contact: 'お問い合わせ（ショップ宛）',
  'contact-ack': 'お問い合わせ受付のお知らせ',
  'receipt-copy': '領収書の控えの送付',
} as const satisfies Record<string, string>;

export type MailKind = keyof typeof MAIL_KINDS;

/** The Japanese name of a stored kind (a kind no longer sent keeps a plain name). */
export const mailKindLabel = (kind: string): string => (MAIL_KINDS as Record<string, string>)[kind] ?? 'その他のメール';
