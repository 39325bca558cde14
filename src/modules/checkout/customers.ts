import type Stripe from 'stripe';
import { db as kysely, now } from '../../db/kysely.ts';
import type { Em } from '../../db/orm.ts';

/**
 * The member's Stripe Customer (customer_balance needs one: Stripe gives the customer a virtual
 * account and keeps over- or under-payments as its balance), created once and kept: the first saved
 * wins. No key of ours (stripe-node sets one for its retries): Stripe would replay a failed create's
 * error for that key's 24 h, and two first checkouts at once cost only an unused Customer.
 */
export async function stripeCustomerOf(em: Em, stripe: Stripe, buyer: { id: string; email: string }): Promise<string> {
  const db = kysely(em);
  const known = await db
    .selectFrom('checkout_customers')
    .select('stripe_customer_id')
    .where('user_id', '=', buyer.id)
    .executeTakeFirst();
  if (known) return known.stripe_customer_id;
  const customer = await stripe.customers.create({ email: buyer.email, metadata: { userId: buyer.id } });
  await db
    .insertInto('checkout_customers')
    .values({ user_id: buyer.id, stripe_customer_id: customer.id, created_at: now() })
    .onConflict((oc) => oc.column('user_id').doNothing())
    .execute();
  const kept = await db
    .selectFrom('checkout_customers')
    .select('stripe_customer_id')
    .where('user_id', '=', buyer.id)
    .executeTakeFirstOrThrow();
  return kept.stripe_customer_id;
}
