import type { EventHandler } from '../../../jobs/context.ts';
import { forgetUser, reconcile } from '../service.ts';

/** StripeEventReceived → reconcile the inbox event into checkout state (and CheckoutPaid/PaymentRefunded). */
export const onStripeEventReceived: EventHandler<'StripeEventReceived'> = (ctx, event) =>
  reconcile({ em: ctx.em, stripe: ctx.stripe, log: ctx.log }, event.payload.eventId);

/** UserDeleted → checkout records drop the account link. */
export const onUserDeleted: EventHandler<'UserDeleted'> = (ctx, event) => forgetUser(ctx.em, event.payload.userId);
