import type { RateLimitRule } from '../http/rate-limit.ts';

const minutes = (n: number) => n * 60;
const hours = (n: number) => n * 3600;

/**
 * Every throttle of the shop, with its reason (docs/decisions/0014-throttles.md). Members sit behind
 * shared networks — a hospital, a police or fire station NAT with hundreds of staff — so limits per
 * client address are generous and count only what an attacker must repeat; the tight limits follow
 * the target: the account being guessed, the mailbox being written to, the member spending our
 * Stripe calls. Addresses are IPv4 addresses or IPv6 /64 networks (src/http/client-ip.ts).
 */
export const LIMITS = {
  /** Password guessing against one account, from any number of addresses; the owner is told once. */
  signInFailuresPerAccount: { name: 'signin-fail-account', limit: 10, windowSeconds: minutes(15) },
  /** Guessing across accounts from one address; a whole hospital mistyping still fits. Successes never count. */
  signInFailuresPerAddress: { name: 'signin-fail-address', limit: 100, windowSeconds: minutes(15) },
  /**
   * Anonymous passkey sign-in challenges from one address: each is a Redis key for 5 minutes, and a
   * person signs in a few times a day; a whole hospital behind one NAT still fits in a minute.
   */
  passkeyOptionsPerAddress: { name: 'passkey-options-address', limit: 60, windowSeconds: minutes(1) },
  /** A department registering together from one network. */
  registrationsPerAddress: { name: 'register-address', limit: 60, windowSeconds: hours(1) },
  /**
   * The 「ログインを一時的に制限しました」 notice: once per account in 6 hours however often anyone
   * fills the failure window (it was 96 a day), and it counts on `mailPerRecipient` too.
   */
  signInNoticePerAccount: { name: 'signin-notice', limit: 1, windowSeconds: hours(6) },
  /** Mail to one mailbox (registration, verification, reset, e-mail change), whoever asks: no mail bombing. */
  mailPerRecipient: { name: 'mail-recipient', limit: 5, windowSeconds: hours(1) },
  /** Mail-triggering calls from one address, to any recipients. */
  mailRequestsPerAddress: { name: 'mail-address', limit: 60, windowSeconds: minutes(15) },
  /** A member asking for e-mail changes. */
  emailChangesPerMember: { name: 'email-change-member', limit: 5, windowSeconds: hours(1) },
  /** A member trying current passwords (the change form and 退会 share it). */
  passwordChangesPerMember: { name: 'password-change', limit: 10, windowSeconds: minutes(15) },
  /**
   * Receipts one member (or administrator) issues: each is a PDF rendered inside a transaction, a
   * counted re-issue and an audit row (60 in 3 s flooded the audit log). A member has a few purchases.
   */
  receiptsPerMember: { name: 'receipt-member', limit: 30, windowSeconds: hours(1) },
  /**
   * Member CSVs one administrator downloads: each holds every member's personal data (the audit log
   * records each), so a script or a stolen session pulling it over and over stops here.
   */
  memberCsvPerAdmin: { name: 'member-csv-admin', limit: 10, windowSeconds: hours(1) },
  /** Checkout Sessions a member creates: each one is a Stripe API call. */
  checkoutsPerMember: { name: 'checkout-member', limit: 10, windowSeconds: minutes(10) },
  /** Audit-log CSV exports an administrator makes: each reads the filtered log whole and is audited itself. */
  auditExportsPerAdmin: { name: 'audit-export-admin', limit: 20, windowSeconds: hours(1) },
} as const satisfies Record<string, RateLimitRule>;
