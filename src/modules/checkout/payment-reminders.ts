import { sql } from 'kysely';
import { db as kysely } from '../../db/kysely.ts';
import type { Em } from '../../db/orm.ts';

/** What a reminder reads and marks for each kind of pending payment, and how many days before the deadline's day it is due. */
const PENDING_PAYMENTS = {
  konbini: {
    expiresAt: 'konbini_expires_at',
    remindedAt: 'konbini_reminded_at',
    daysBefore: 1,
    event: 'KonbiniPaymentReminderDue',
  },
  bank_transfer: {
    expiresAt: 'bank_transfer_expires_at',
    remindedAt: 'bank_transfer_reminded_at',
    daysBefore: 2,
    event: 'BankTransferReminderDue',
  },
} as const;
export type PendingPaymentKind = keyof typeof PENDING_PAYMENTS;

/** From 09:00 Japan time: never in the night. */
const REMINDER_HOUR_JST = 9;

/**
 * The reminders due at `now` for one kind of pending payment, for orders placed before the reminder's day.
 * Marked reminded in the same statement, so a checkout is reminded once whichever worker sweeps; locked rows wait for the next sweep.
 */
export async function dueReminders<K extends PendingPaymentKind>(em: Em, now: Date, kind: K) {
  const { expiresAt, remindedAt, daysBefore, event } = PENDING_PAYMENTS[kind];
  const at = sql<string>`${now.toISOString()}::timestamptz`;
  const rows = await kysely(em)
    .updateTable('checkout_sessions')
    .set(remindedAt, at)
    .set('updated_at', sql`now()`)
    .where('id', 'in', (eb) =>
      eb
        .selectFrom('checkout_sessions')
        .select('id')
        .where('state', '=', 'awaiting_payment')
        .where(remindedAt, 'is', null)
        .where(expiresAt, '>', at)
        // Implied by the hour below (the deadline is less than daysBefore + 1 days away); it bounds the index scan.
        .where(expiresAt, '<=', sql<string>`${at} + make_interval(days => ${daysBefore + 1}::int)`)
        // Japan-calendar arithmetic, which the builder has no words for.
        .where((w) => {
          const day = sql`((${w.ref(expiresAt)} at time zone 'Asia/Tokyo')::date - ${daysBefore}::int)`;
          return w.and([
            w(at, '>=', sql<string>`(${day} + make_time(${REMINDER_HOUR_JST}, 0, 0)) at time zone 'Asia/Tokyo'`),
            w('created_at', '<', sql<string>`${day}::timestamp at time zone 'Asia/Tokyo'`),
          ]);
        })
        .orderBy(expiresAt)
        .limit(100)
        .forUpdate()
        .skipLocked(),
    )
    .returning('id')
    .execute();
  return rows.map((row) => ({ name: event as (typeof PENDING_PAYMENTS)[K]['event'], payload: { checkoutId: row.id } }));
}
