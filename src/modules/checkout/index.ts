// The checkout module's public surface: Stripe Checkout Sessions, the webhook inbox and reconciliation.
import type { AppModule } from '../../http/context.ts';
import { CheckoutCustomer, CheckoutSession, StripeEvent } from './entities/checkout-session.entity.ts';
import { PaymentFinding, ReconciliationRun } from './entities/reconciliation.entity.ts';
import { onFlaggedPaymentRefunded } from './flagged-refund-record.ts';
import {
  onBankTransferInstructionsIssued,
  onBankTransferLapsed,
  onBankTransferReminderDue,
  onKonbiniPaymentLapsed,
  onKonbiniPaymentReminderDue,
  onKonbiniVoucherIssued,
  onLicenseHidden,
  onReconciliationRequested,
  onStripeEventReceived,
  onUserDeleted,
} from './handlers/checkout-handlers.ts';
import { paymentRoutes } from './payment-routes.ts';
import { pendingKonbiniRoutes } from './pending-konbini.ts';
import { onReconciliationFlagged } from './reconciliation-digest.ts';
import { checkoutRoutes, WEBHOOK_PATH } from './routes.ts';

export { checkoutAuditLabels } from './audit-labels.ts';
export { bankTransferSweep } from './bank-transfer-mails.ts';
export { checkoutDashboard } from './dashboard.ts';
export { flaggedPaymentFigures, paymentsInboxFigures } from './figures.ts';
export { konbiniReminders } from './konbini.ts';
export { invoiceOrderFacts, type MemberOrder, memberOrderOf, memberOrdersOf } from './member-orders.ts';
export { paymentOfCheckout } from './payment-method.ts';
export { scheduleNightlyReconciliation } from './reconciliation.ts';
export { BankTransferAnswer, KonbiniVoucherAnswer } from './responses.ts';
export { seatsTaken } from './service.ts';
export { createPayments } from './stripe.ts';
export { sweepStripeEvents } from './sweep.ts';

export const checkout = {
  name: 'checkout',
  api: checkoutRoutes.route('/', paymentRoutes).route('/', pendingKonbiniRoutes),
  entities: [CheckoutSession, CheckoutCustomer, StripeEvent, ReconciliationRun, PaymentFinding],
  handlers: {
    StripeEventReceived: onStripeEventReceived,
    UserDeleted: onUserDeleted,
    ReconciliationRequested: onReconciliationRequested,
    ReconciliationFlagged: onReconciliationFlagged,
    FlaggedPaymentRefunded: onFlaggedPaymentRefunded,
    KonbiniVoucherIssued: onKonbiniVoucherIssued,
    KonbiniPaymentReminderDue: onKonbiniPaymentReminderDue,
    KonbiniPaymentLapsed: onKonbiniPaymentLapsed,
    BankTransferInstructionsIssued: onBankTransferInstructionsIssued,
    BankTransferReminderDue: onBankTransferReminderDue,
    BankTransferLapsed: onBankTransferLapsed,
    LicenseHidden: onLicenseHidden,
  },
  csrfExempt: [`/api${WEBHOOK_PATH}`],
} satisfies AppModule;
