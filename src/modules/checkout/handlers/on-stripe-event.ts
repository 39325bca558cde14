import type { EventHandler } from '../../../jobs/context.ts';
import { reconcile } from '../service.ts';

/** StripeEventReceived → reconcile the inbox event into checkout state (and CheckoutPaid/PaymentRefunded). */
export const onStripeEventReceived: EventHandler<'StripeEventReceived'> = (ctx, event) =>
  reconcile({ em: ctx.em, stripe: ctx.stripe, log: ctx.log }, event.payload.eventId);
