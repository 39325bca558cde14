import type { RateLimitRule } from '../http/rate-limit.ts';

const minutes = (n: number) => n * 60;
const hours = (n: number) => n * 3600;

/** Generous per address (members share hospital NATs), tight per target (docs/decisions/0014-throttles.md). */
export const LIMITS = {
  signInFailuresPerAccount: { name: 'signin-fail-account', limit: 10, windowSeconds: minutes(15) },
  signInFailuresPerAddress: { name: 'signin-fail-address', limit: 100, windowSeconds: minutes(15) },
  passkeyOptionsPerAddress: { name: 'passkey-options-address', limit: 60, windowSeconds: minutes(1) },
  registrationsPerAddress: { name: 'register-address', limit: 60, windowSeconds: hours(1) },
  /** Once per account in 6 hours however often anyone fills the failure window. */
  signInNoticePerAccount: { name: 'signin-notice', limit: 1, windowSeconds: hours(6) },
  mailPerRecipient: { name: 'mail-recipient', limit: 5, windowSeconds: hours(1) },
  mailRequestsPerAddress: { name: 'mail-address', limit: 60, windowSeconds: minutes(15) },
  emailChangesPerMember: { name: 'email-change-member', limit: 5, windowSeconds: hours(1) },
  passwordChangesPerMember: { name: 'password-change', limit: 10, windowSeconds: minutes(15) },
  /** Each receipt is a PDF rendered inside a transaction and an audit row. */
  receiptsPerMember: { name: 'receipt-member', limit: 30, windowSeconds: hours(1) },
  quotationsPerMember: { name: 'quotation-member', limit: 10, windowSeconds: hours(1) },
  /** Each file holds every member's personal data. */
  memberCsvPerAdmin: { name: 'member-csv-admin', limit: 10, windowSeconds: hours(1), what: '会員CSVのダウンロード' },
  checkoutsPerMember: { name: 'checkout-member', limit: 10, windowSeconds: minutes(10) },
  auditExportsPerAdmin: { name: 'audit-export-admin', limit: 20, windowSeconds: hours(1), what: '操作履歴CSVのダウンロード' },
  /** Per sale and Japan day (the key names the day). */
  purchaseMailResendsPerSale: { name: 'purchase-mail-resend', limit: 5, windowSeconds: hours(24) },
  /** Each sends two mails, one of them to whatever address was typed. */
  contactsPerAddress: { name: 'contact-address', limit: 20, windowSeconds: hours(1) },
  contactsPerMailbox: { name: 'contact-mailbox', limit: 3, windowSeconds: hours(1) },
} as const satisfies Record<string, RateLimitRule>;
