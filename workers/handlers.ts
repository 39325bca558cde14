import {
  type DomainEvent,
  type EventName,
  eventNames,
  eventRoutes,
  type QueueName,
  type RoutedEvent,
} from '../src/events/contracts.ts';
import { type EventHandler, type EventHandlers, inTurn } from '../src/jobs/context.ts';
import { accounts, purchaseFiguresKeeper } from '../src/modules/accounts/index.ts';
import { announcements } from '../src/modules/announcements/index.ts';
import { checkout } from '../src/modules/checkout/index.ts';
import { contact } from '../src/modules/contact/index.ts';
import { purchaseFiguresOfSale, sales } from '../src/modules/sales/index.ts';

const keepPurchaseFigures = purchaseFiguresKeeper(purchaseFiguresOfSale);

/**
 * Which module handles which event. The mapped type ties each event routed to a queue to a handler
 * of that event's payload: a missing handler, or one written for another event, does not compile.
 */
export type HandlerMap = { [N in RoutedEvent]: EventHandler<N> };

export const handlers: HandlerMap = {
  ...accounts.handlers,
  ...announcements.handlers,
  ...checkout.handlers,
  ...contact.handlers,
  ...sales.handlers,
  // Both modules keep a reference to the user.
  UserDeleted: inTurn(sales.handlers.UserDeleted, checkout.handlers.UserDeleted),
  // The receipt or refund mail, then the member list's purchase figures.
  SalePaid: inTurn(sales.handlers.SalePaid, keepPurchaseFigures),
  SaleRefunded: inTurn(sales.handlers.SaleRefunded, keepPurchaseFigures),
};

const table: EventHandlers = handlers;

/** The handler of `event`, when `queue` carries that event. */
export function handlerFor<N extends EventName>(queue: QueueName, event: DomainEvent<N>): EventHandler<N> | undefined {
  const queues: readonly QueueName[] = eventRoutes[event.name];
  if (!queues.includes(queue)) return undefined;
  return table[event.name];
}

/** Events routed to a queue that has no handler, which must not reach a running worker (checked at start-up). */
export function missingHandlers(implemented: readonly QueueName[]): string[] {
  const missing: string[] = [];
  for (const event of eventNames) {
    const queues: readonly QueueName[] = eventRoutes[event];
    for (const queue of queues) if (implemented.includes(queue) && !table[event]) missing.push(`${queue}:${event}`);
  }
  return missing;
}
