import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CallGraph } from '../../scripts/call-graph.ts';
import { EVENTS_MAP, handlerMap, renderEventsMap } from '../../scripts/events-map.ts';
import { eventNames, eventRoutes } from '../../src/events/contracts.ts';

const root = resolve(import.meta.dirname, '../..');
const temps: string[] = [];
afterAll(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

function tree(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'events-map-'));
  temps.push(dir);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

describe('docs/events.md', () => {
  it('is what `npm run events:map` writes from the code today (regenerate it when this fails)', () => {
    expect(readFileSync(join(root, EVENTS_MAP), 'utf8')).toBe(renderEventsMap(root));
  });

  it('names a handler for every event a queue carries, and what the payment handlers record', () => {
    const graph = new CallGraph(root);
    const handlers = handlerMap(graph);
    for (const event of eventNames) {
      if (eventRoutes[event].length) expect(handlers.get(event)?.length, event).toBeGreaterThan(0);
    }
    const records = (event: string) => [...graph.reach(handlers.get(event) ?? []).records].sort();
    expect(records('StripeEventReceived')).toEqual([
      'BankTransferInstructionsIssued',
      'BankTransferLapsed',
      'CheckoutPaid',
      'FlaggedPaymentRefunded',
      'KonbiniPaymentLapsed',
      'KonbiniVoucherIssued',
      'PaymentRefunded',
    ]);
    expect(records('CheckoutPaid')).toEqual(['SalePaid']);
    expect(records('PaymentRefunded')).toEqual(['SaleRefunded']);
    expect(handlers.get('UserDeleted')?.map((h) => h.file)).toEqual([
      'src/modules/sales/handlers/sale-handlers.ts',
      'src/modules/checkout/handlers/checkout-handlers.ts',
    ]);
  });
});

describe('the call graph', () => {
  it('follows imports, re-exports and local functions to the events recorded, not types or property names', () => {
    const dir = tree({
      'src/modules/a/index.ts': "export { pay } from './pay.ts';\n",
      'src/modules/a/pay.ts': [
        "import { recordEvent } from '../../events/outbox.ts';",
        "import { refund, type Refund } from './refund.ts';",
        'const settle = (tx) => recordEvent(tx, "SalePaid", {});',
        'export function pay(tx, r: Refund) { const o = { refund: 1 }; return [settle(tx), o.refund]; }',
      ].join('\n'),
      'src/modules/a/refund.ts': "export type Refund = 1;\nexport const refund = (tx) => recordEvent(tx, 'SaleRefunded', {});\n",
      'src/modules/b/handler.ts': "import { pay } from '../a/index.ts';\nexport const onCheckoutPaid = (ctx) => pay(ctx.em);\n",
      'src/events/outbox.ts': 'export function recordEvent() {}\n',
    });
    const graph = new CallGraph(dir);
    const reached = graph.reach([{ file: 'src/modules/b/handler.ts', name: 'onCheckoutPaid' }]);
    expect([...reached.records]).toEqual(['SalePaid']);
    expect([...reached.files].sort()).toEqual(['src/events/outbox.ts', 'src/modules/a/pay.ts', 'src/modules/b/handler.ts']);
  });
});
