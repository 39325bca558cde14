import * as v from 'valibot';

/** Small, past-tense, ids and the few facts a consumer needs (no secrets); written to the outbox with the change. */
const id = v.pipe(v.string(), v.minLength(1));

export const eventPayloads = {
  UserRegistered: v.object({ userId: id }),
  RegistrationAttempted: v.object({ userId: id }),
  VerificationEmailRequested: v.object({ userId: id }),
  EmailChangeRequested: v.object({ userId: id, newEmail: v.pipe(v.string(), v.email()) }),
  PasswordResetRequested: v.pipe(
    v.object({ userId: v.optional(id), email: v.optional(v.pipe(v.string(), v.email())) }),
    v.check((payload) => Boolean(payload.userId || payload.email), 'userId or email'),
  ),
  EmailChangedByAdmin: v.object({ userId: id, oldEmail: id }),
  EmailChangeAttempted: v.object({ userId: id }),
  SignInThrottled: v.object({ userId: id }),
  PasswordChanged: v.object({
    userId: id,
    by: v.picklist(['member', 'reset', 'admin']),
    passkeys: v.optional(v.array(v.string())),
  }),
  NewDeviceSignIn: v.object({ userId: id, at: v.string(), ip: v.string(), userAgent: v.string() }),
  TwoFactorChanged: v.object({
    userId: id,
    change: v.picklist(['enabled', 'disabled', 'recovery-codes', 'passkey-added', 'passkey-removed']),
  }),
  TwoFactorLocked: v.object({ userId: id }),
  /** `by`: older events say neither. */
  UserDeleted: v.object({ userId: id, by: v.optional(v.picklist(['member', 'admin'])) }),
  /** The address and name, taken before deletion, are for the goodbye e-mail only. */
  MemberWithdrew: v.object({ userId: id, email: v.pipe(v.string(), v.email()), name: v.string() }),
  StripeEventReceived: v.object({ eventId: id }),
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
    // Absent in events written before 受注CSV: the sale then says card, and no order time.
    orderedAt: v.optional(v.string()),
    paymentMethod: v.optional(v.string()),
    /** The checkout's number, given when it was created (older events carry none: the sale draws one). */
    orderNumber: v.optional(v.nullable(v.string())),
  }),
  // amountRefunded: the charge's refunded total so far (absent in older events: the whole amount).
  PaymentRefunded: v.object({ checkoutId: id, refundedAt: v.string(), amountRefunded: v.optional(v.number()) }),
  /** A payment kept without a sale (held already, full, hidden) was refunded in full: the member is told. */
  FlaggedPaymentRefunded: v.object({ checkoutId: id, amount: v.number() }),
  KonbiniVoucherIssued: v.object({ checkoutId: id }),
  KonbiniPaymentReminderDue: v.object({ checkoutId: id }),
  KonbiniPaymentLapsed: v.object({ checkoutId: id }),
  BankTransferInstructionsIssued: v.object({ checkoutId: id }),
  BankTransferReminderDue: v.object({ checkoutId: id }),
  BankTransferLapsed: v.object({ checkoutId: id }),
  LicenseHidden: v.object({ licenseId: v.number() }),
  SalePaid: v.object({ saleId: v.number() }),
  SaleRefunded: v.object({ saleId: v.number(), amount: v.optional(v.number()) }),
  /** An administrator asked for the purchase mail again (to the member's address now). */
  PurchaseMailResendRequested: v.object({ saleId: v.number() }),
  /** Never the sales themselves; events written before moves existed named every sale (`saleIds`) and are still read. */
  SaleStatusChanged: v.union([
    v.object({ moveId: id, count: v.number(), from: v.number(), to: v.number(), actorId: id }),
    v.object({ saleIds: v.array(v.number()), from: v.number(), to: v.number(), actorId: id }),
  ]),
  RegistrationMailsDue: v.object({ moveId: id, fromSaleId: v.number() }),
  ExportRequested: v.object({ exportId: id }),
  ReconciliationRequested: v.object({ trigger: v.picklist(['manual', 'schedule']), runId: v.optional(id) }),
  ReconciliationFlagged: v.object({ runId: id, outcome: v.picklist(['findings', 'failed']) }),
  AnnouncementRequested: v.object({ announcementId: id }),
  /** The next batch of an announcement's mails (each job sends one batch, then records the next). */
  AnnouncementBatchDue: v.object({ announcementId: id, batch: v.number() }),
  /** A draft, not yet stored: its text travels with the event to the administrator's own address. */
  AnnouncementTestRequested: v.object({
    userId: id,
    subject: v.string(),
    body: v.string(),
    licenseId: v.nullable(v.number()),
    kind: v.optional(v.picklist(['marketing', 'legal_notice']), 'marketing'),
  }),
  ContactReceived: v.object({ contactId: id }),
  /** An administrator sends a receipt's 控え to an address (a withdrawn member's request). */
  ReceiptCopyRequested: v.object({ saleId: v.number(), email: v.pipe(v.string(), v.email()), actorId: id }),
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

export const queueNames = ['mail', 'payments', 'exports', 'announcements'] as const;
export type QueueName = (typeof queueNames)[number];

/** An event that no consumer needs yet routes nowhere and is simply marked published. */
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
  FlaggedPaymentRefunded: ['mail'],
  KonbiniVoucherIssued: ['mail'],
  KonbiniPaymentReminderDue: ['mail'],
  KonbiniPaymentLapsed: ['mail'],
  BankTransferInstructionsIssued: ['mail'],
  BankTransferReminderDue: ['mail'],
  BankTransferLapsed: ['mail'],
  LicenseHidden: ['payments'],
  SalePaid: ['mail'],
  SaleRefunded: ['mail'],
  PurchaseMailResendRequested: ['mail'],
  SaleStatusChanged: ['mail'],
  RegistrationMailsDue: ['mail'],
  ExportRequested: ['exports'],
  ReconciliationRequested: ['payments'],
  ReconciliationFlagged: ['mail'],
  AnnouncementRequested: ['announcements'],
  AnnouncementBatchDue: ['announcements'],
  AnnouncementTestRequested: ['mail'],
  ContactReceived: ['mail'],
  ReceiptCopyRequested: ['mail'],
} as const satisfies Record<EventName, readonly QueueName[]>;

export type RoutedEvent = { [N in EventName]: (typeof eventRoutes)[N] extends readonly [] ? never : N }[EventName];

export function parseEvent(raw: { id: string; name: string; occurredAt: string; payload: unknown }): DomainEvent {
  if (!(raw.name in eventPayloads)) throw new Error(`unknown event ${raw.name}`);
  const name = raw.name as EventName;
  const payload = v.parse(eventPayloads[name], raw.payload);
  return { id: raw.id, name, occurredAt: raw.occurredAt, payload } as DomainEvent;
}
