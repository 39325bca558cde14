import type { EventName, QueueName } from '../events/contracts.ts';
import { eventRoutes } from '../events/contracts.ts';
import {
  onEmailChangeRequested,
  onPasswordResetRequested,
  onRegistrationAttempted,
  onUserRegistered,
  onVerificationEmailRequested,
} from '../modules/accounts/handlers/account-mails.ts';
import { onStripeEventReceived } from '../modules/checkout/handlers/on-stripe-event.ts';
import { onExportRequested } from '../modules/exports/handlers/on-export-requested.ts';
import { onCheckoutPaid, onPaymentRefunded, onSalePaid, onSaleStatusChanged } from '../modules/sales/handlers/sale-handlers.ts';
import type { EventHandler } from './context.ts';

/** Which module handles which event on which queue. Checked against the routes at start-up. */
export const handlers: Partial<Record<QueueName, Partial<Record<EventName, EventHandler>>>> = {
  mail: {
    UserRegistered: onUserRegistered as EventHandler,
    RegistrationAttempted: onRegistrationAttempted as EventHandler,
    VerificationEmailRequested: onVerificationEmailRequested as EventHandler,
    EmailChangeRequested: onEmailChangeRequested as EventHandler,
    PasswordResetRequested: onPasswordResetRequested as EventHandler,
    SalePaid: onSalePaid as EventHandler,
    SaleStatusChanged: onSaleStatusChanged as EventHandler,
  },
  exports: {
    ExportRequested: onExportRequested as EventHandler,
  },
  payments: {
    StripeEventReceived: onStripeEventReceived as EventHandler,
    CheckoutPaid: onCheckoutPaid as EventHandler,
    PaymentRefunded: onPaymentRefunded as EventHandler,
  },
};

/** Events routed to a queue that has no handler yet, which must not reach a running worker. */
export function missingHandlers(implemented: readonly QueueName[]): string[] {
  const missing: string[] = [];
  for (const [event, queues] of Object.entries(eventRoutes)) {
    for (const queue of queues) {
      if (implemented.includes(queue) && !handlers[queue]?.[event as EventName]) missing.push(`${queue}:${event}`);
    }
  }
  return missing;
}
