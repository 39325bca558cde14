import type { EventName, QueueName } from './contracts.ts';

/**
 * What an administrator reads for each queue and job: the queue dashboard (bull-board) and the
 * 運用状況 page use these words instead of the code's names. Plain data, no valibot, so the SPA can
 * import it too. A new event in contracts.ts must get its label here (the type checker asks for it).
 */
export const queueLabels: Record<QueueName, string> = {
  mail: 'メール',
  payments: '決済',
  exports: 'CSV出力',
  announcements: 'お知らせ配信',
};

/** A job's name is the event it carries (the relay enqueues `event.name`). */
export const eventLabels: Record<EventName, string> = {
  UserRegistered: '会員登録（確認メール）',
  RegistrationAttempted: '登録済みアドレスでの登録の試み',
  VerificationEmailRequested: '確認メールの再送',
  EmailChangeRequested: 'メールアドレス変更の確認',
  PasswordResetRequested: 'パスワード再設定の案内',
  EmailChangedByAdmin: '管理者によるメールアドレス変更',
  EmailChangeAttempted: '使用中アドレスへの変更の試み',
  SignInThrottled: 'ログインの一時停止',
  PasswordChanged: 'パスワード変更のお知らせ',
  NewDeviceSignIn: '新しい端末からのログイン',
  TwoFactorChanged: '二段階認証の設定変更',
  TwoFactorLocked: '確認コードによるログインの停止',
  UserDeleted: '会員の削除',
  MemberWithdrew: '退会のお知らせ',
  StripeEventReceived: 'Stripe からの通知の処理',
  CheckoutPaid: '決済の完了',
  PaymentRefunded: '返金の反映',
  FlaggedPaymentRefunded: '売上にしなかった支払いの返金のお知らせ',
  KonbiniVoucherIssued: 'コンビニ払込票の発行',
  KonbiniPaymentReminderDue: 'コンビニ支払期限の前日のお知らせ',
  KonbiniPaymentLapsed: 'コンビニ支払期限切れ',
  BankTransferInstructionsIssued: '銀行振込のお振込先の発行',
  BankTransferReminderDue: '銀行振込の期限前のお知らせ',
  BankTransferLapsed: '銀行振込の期限切れ',
  LicenseHidden: 'ライセンスの非公開（決済の締め切り）',
  SalePaid: '購入の記録',
  SaleRefunded: '返金の記録',
  PurchaseMailResendRequested: '購入のお知らせメールの再送',
  SaleStatusChanged: '売上の状態の変更',
  RegistrationMailsDue: '登録完了メールの送信',
  ContactReceived: 'お問い合わせのメール',
  ReceiptCopyRequested: '領収書の控えの送付',
  ExportRequested: '研修管理システム用CSVの作成',
  ReconciliationRequested: '決済の照合',
  ReconciliationFlagged: '照合結果のお知らせ',
  AnnouncementRequested: 'お知らせ配信の開始',
  AnnouncementBatchDue: 'お知らせ配信（続き）',
  AnnouncementTestRequested: 'お知らせのテスト送信',
};

/** Jobs that carry no event: the sweeper's own schedule. */
const otherJobLabels: Record<string, string> = {
  sweep: '取りこぼしの見直し',
};

/** The Japanese label of a queue, or its code name when it has none. */
export function queueLabel(name: string): string {
  return (queueLabels as Record<string, string>)[name] ?? name;
}

/** The Japanese label of a job (an event's name), or 「不明なジョブ（name）」 for one the code does not know. */
export function jobLabel(name: string): string {
  const label = (eventLabels as Record<string, string>)[name] ?? otherJobLabels[name];
  return label ?? `不明なジョブ（${name}）`;
}
