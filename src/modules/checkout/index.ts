// The checkout module's public surface: Stripe Checkout Sessions, the webhook inbox and reconciliation.
import type { AppModule } from '../../http/context.ts';
import { CheckoutSession, StripeEvent } from './entities/checkout-session.entity.ts';
import { onStripeEventReceived, onUserDeleted } from './handlers/checkout-handlers.ts';
import { checkoutRoutes, WEBHOOK_PATH } from './routes.ts';

export { createPayments, type Payments } from './stripe.ts';

export const checkout = {
  name: 'checkout',
  api: checkoutRoutes,
  entities: [CheckoutSession, StripeEvent],
  handlers: { StripeEventReceived: onStripeEventReceived, UserDeleted: onUserDeleted },
  csrfExempt: [`/api${WEBHOOK_PATH}`],
} satisfies AppModule;
