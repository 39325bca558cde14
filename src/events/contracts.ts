import * as v from 'valibot';

/**
 * Domain events: small, past-tense, carrying ids and the few facts a consumer needs (no secrets).
 * Each is written to the outbox in the transaction that makes the change (see outbox.ts).
 */
const id = v.pipe(v.string(), v.minLength(1));

export const eventPayloads = {
  UserRegistered: v.object({ userId: id }),
  /** Someone tried to register an address that already has an account: its owner is told. */
  RegistrationAttempted: v.object({ userId: id }),
  VerificationEmailRequested: v.object({ userId: id }),
  EmailChangeRequested: v.object({ userId: id, newEmail: v.pipe(v.string(), v.email()) }),
  /** Forgot-password: by address (the worker finds the account, if any) or by account. */
  PasswordResetRequested: v.pipe(
    v.object({ userId: v.optional(id), email: v.optional(v.pipe(v.string(), v.email())) }),
    v.check((payload) => Boolean(payload.userId || payload.email), 'userId or email'),
  ),
  /** An administrator changed a member's e-mail (at once): both addresses are told. */
  EmailChangedByAdmin: v.object({ userId: id, oldEmail: id }),
  /** Someone asked to move their account to an address another account uses: that owner is told. */
  EmailChangeAttempted: v.object({ userId: id }),
  /** Sign-in to this account is paused after repeated failed passwords: its owner is told. */
  SignInThrottled: v.object({ userId: id }),
  /** A password was changed by its member, reset by link or set by an administrator: its owner is told. */
  PasswordChanged: v.object({
    userId: id,
    by: v.picklist(['member', 'reset', 'admin']),
    /** The passkeys' names: those a reset removed, or those still registered after a change. */
    passkeys: v.optional(v.array(v.string())),
  }),
  /** A sign-in from a browser the account had not used before: its owner is told when, where and with what. */
  NewDeviceSignIn: v.object({ userId: id, at: v.string(), ip: v.string(), userAgent: v.string() }),
  /** Two-factor was turned on or off, or a passkey added or removed: the owner is told (二段階認証の設定変更). */
  TwoFactorChanged: v.object({
    userId: id,
    change: v.picklist(['enabled', 'disabled', 'recovery-codes', 'passkey-added', 'passkey-removed']),
  }),
  /** Codes are refused after three two-factor lock-outs in a row: the owner gets an unlock link. */
  TwoFactorLocked: v.object({ userId: id }),
  /** An account was deleted: modules that keep a reference to the user drop it. */
  /** `by`: the member left (退会) or an administrator deleted the account; older events say neither. */
  UserDeleted: v.object({ userId: id, by: v.optional(v.picklist(['member', 'admin'])) }),
  /** A member left (退会): the address and name, taken before deletion, are for the goodbye e-mail only. */
  MemberWithdrew: v.object({ userId: id, email: v.pipe(v.string(), v.email()), name: v.string() }),
  /** A verified Stripe event is in the payments inbox. */
  StripeEventReceived: v.object({ eventId: id }),
  /** A checkout was paid (card, or a delayed payment that succeeded). */
  CheckoutPaid: v.object({
    checkoutId: id,
    userId: v.nullable(v.string()),
    licenseId: v.number(),
    amount: v.number(),
    currency: v.string(),
    stripeSessionId: id,
    paymentIntentId: v.nullable(v.string()),
    receiptUrl: v.nullable(v.string()),
    paidAt: v.string(),
  }),
  PaymentRefunded: v.object({ checkoutId: id, refundedAt: v.string() }),
  /** A konbini payment awaits the buyer at the shop counter: Stripe's voucher is stored, the buyer is told. */
  KonbiniVoucherIssued: v.object({ checkoutId: id }),
  /** The day before a pending konbini payment's deadline (JST): the buyer is reminded, once per checkout. */
  KonbiniPaymentReminderDue: v.object({ checkoutId: id }),
  /** A konbini payment's deadline passed unpaid: the buyer is told (支払期限切れのお知らせ). */
  KonbiniPaymentLapsed: v.object({ checkoutId: id }),
  /** A licence went from 公開 to 非公開: its Checkout Sessions still open at Stripe are expired. */
  LicenseHidden: v.object({ licenseId: v.number() }),
  SalePaid: v.object({ saleId: v.number() }),
  SaleRefunded: v.object({ saleId: v.number() }),
  /**
   * Sales moved from one state to the next: the move (its sales are the sales module's to page
   * through) and how many, never the sales themselves. Events written before moves existed named
   * every sale (`saleIds`); they are still read while such events may wait in an outbox.
   */
  SaleStatusChanged: v.union([
    v.object({ moveId: id, count: v.number(), from: v.number(), to: v.number(), actorId: id }),
    v.object({ saleIds: v.array(v.number()), from: v.number(), to: v.number(), actorId: id }),
  ]),
  /** One page of a move to 登録済み whose buyers get the registration mail (at most 500 sales). */
  RegistrationMailsDue: v.object({ moveId: id, fromSaleId: v.number() }),
  ExportRequested: v.object({ exportId: id }),
  /** Compare Stripe's paid Checkout Sessions with our sales: 「今すぐ照合」 (runId) or the nightly schedule. */
  ReconciliationRequested: v.object({ trigger: v.picklist(['manual', 'schedule']), runId: v.optional(id) }),
  /** A reconciliation run found differences or failed: the administrators get one digest e-mail. */
  ReconciliationFlagged: v.object({ runId: id, outcome: v.picklist(['findings', 'failed']) }),
} as const;

export type EventName = keyof typeof eventPayloads;
export const eventNames = Object.keys(eventPayloads) as EventName[];
export type EventPayload<N extends EventName> = v.InferOutput<(typeof eventPayloads)[N]>;

export interface DomainEvent<N extends EventName = EventName> {
  id: string;
  name: N;
  occurredAt: string;
  payload: EventPayload<N>;
}

export const queueNames = ['mail', 'payments', 'exports'] as const;
export type QueueName = (typeof queueNames)[number];

/**
 * Which queues receive which event: the consuming module owns the handler, the queue only carries it.
 * An event that no consumer needs yet routes nowhere and is simply marked published.
 */
export const eventRoutes = {
  UserRegistered: ['mail'],
  RegistrationAttempted: ['mail'],
  VerificationEmailRequested: ['mail'],
  EmailChangeRequested: ['mail'],
  PasswordResetRequested: ['mail'],
  EmailChangeAttempted: ['mail'],
  EmailChangedByAdmin: ['mail'],
  SignInThrottled: ['mail'],
  PasswordChanged: ['mail'],
  NewDeviceSignIn: ['mail'],
  TwoFactorChanged: ['mail'],
  TwoFactorLocked: ['mail'],
  UserDeleted: ['payments'],
  MemberWithdrew: ['mail'],
  StripeEventReceived: ['payments'],
  CheckoutPaid: ['payments'],
  PaymentRefunded: ['payments'],
  KonbiniVoucherIssued: ['mail'],
  KonbiniPaymentReminderDue: ['mail'],
  KonbiniPaymentLapsed: ['mail'],
  LicenseHidden: ['payments'],
  SalePaid: ['mail'],
  SaleRefunded: ['mail'],
  SaleStatusChanged: ['mail'],
  RegistrationMailsDue: ['mail'],
  ExportRequested: ['exports'],
  ReconciliationRequested: ['payments'],
  ReconciliationFlagged: ['mail'],
} as const satisfies Record<EventName, readonly QueueName[]>;

/** The events some queue carries: each must have a handler (workers/handlers.ts, checked by the compiler). */
export type RoutedEvent = { [N in EventName]: (typeof eventRoutes)[N] extends readonly [] ? never : N }[EventName];

export function parseEvent(raw: { id: string; name: string; occurredAt: string; payload: unknown }): DomainEvent {
  if (!(raw.name in eventPayloads)) throw new Error(`unknown event ${raw.name}`);
  const name = raw.name as EventName;
  const payload = v.parse(eventPayloads[name], raw.payload);
  return { id: raw.id, name, occurredAt: raw.occurredAt, payload } as DomainEvent;
}
