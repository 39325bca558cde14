import type { EventHandler } from '../../../jobs/context.ts';
import { cancelLapsedTransfer } from '../bank-transfer-cancel.ts';
import { mailBankTransfer } from '../bank-transfer-mails.ts';
import { expireCheckoutsOfHiddenLicense } from '../hidden-license.ts';
import { mailKonbiniLapsed, mailKonbiniReminder, mailKonbiniVoucher } from '../konbini.ts';
import { runReconciliation } from '../reconciliation.ts';
import { forgetUser } from '../service.ts';
import { processStripeEvent } from '../stripe-events.ts';

/** StripeEventReceived → reconcile the inbox event into checkout state (and CheckoutPaid/PaymentRefunded). */
export const onStripeEventReceived: EventHandler<'StripeEventReceived'> = (ctx, event) =>
  processStripeEvent(
    { em: ctx.em, stripe: ctx.stripe, log: ctx.log, bankTransferDays: ctx.env.bankTransferDays },
    event.payload.eventId,
  );

/** UserDeleted → checkout records drop the account link. */
export const onUserDeleted: EventHandler<'UserDeleted'> = (ctx, event) => forgetUser(ctx.em, event.payload.userId);

/** ReconciliationRequested → compare Stripe's Checkout Sessions and refunds with the sales. */
export const onReconciliationRequested: EventHandler<'ReconciliationRequested'> = (ctx, event) =>
  runReconciliation({ em: ctx.em, stripe: ctx.stripe, log: ctx.log }, event.payload);

/** KonbiniVoucherIssued → the voucher e-mail (payment numbers, link, deadline), once. */
export const onKonbiniVoucherIssued: EventHandler<'KonbiniVoucherIssued'> = (ctx, event) =>
  mailKonbiniVoucher(ctx, event.id, event.payload.checkoutId);

/** KonbiniPaymentReminderDue → the reminder the day before the deadline, once. */
export const onKonbiniPaymentReminderDue: EventHandler<'KonbiniPaymentReminderDue'> = (ctx, event) =>
  mailKonbiniReminder(ctx, event.id, event.payload.checkoutId);

/** KonbiniPaymentLapsed → 支払期限切れのお知らせ, once. */
export const onKonbiniPaymentLapsed: EventHandler<'KonbiniPaymentLapsed'> = (ctx, event) =>
  mailKonbiniLapsed(ctx, event.id, event.payload.checkoutId);

/** BankTransferInstructionsIssued → the virtual account, amount and deadline by mail, once. */
export const onBankTransferInstructionsIssued: EventHandler<'BankTransferInstructionsIssued'> = (ctx, event) =>
  mailBankTransfer(ctx, event.id, event.payload.checkoutId, 'bank-transfer-instructions');

/** BankTransferReminderDue → the reminder two days before the deadline, once. */
export const onBankTransferReminderDue: EventHandler<'BankTransferReminderDue'> = (ctx, event) =>
  mailBankTransfer(ctx, event.id, event.payload.checkoutId, 'bank-transfer-reminder');

/** BankTransferLapsed → the payment intent cancelled at Stripe (a later transfer stays in the customer's balance), and 振込期限切れのお知らせ once. */
export const onBankTransferLapsed: EventHandler<'BankTransferLapsed'> = async (ctx, event) => {
  await cancelLapsedTransfer({ em: ctx.em, stripe: ctx.stripe, log: ctx.log }, event.payload.checkoutId);
  return mailBankTransfer(ctx, event.id, event.payload.checkoutId, 'bank-transfer-lapsed');
};

/** LicenseHidden → its Checkout Sessions still open at Stripe are expired. */
export const onLicenseHidden: EventHandler<'LicenseHidden'> = (ctx, event) =>
  expireCheckoutsOfHiddenLicense({ em: ctx.em, stripe: ctx.stripe, log: ctx.log }, event.payload.licenseId);
