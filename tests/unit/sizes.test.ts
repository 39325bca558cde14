import { describe, expect, it } from 'vitest';
import { longFunctionsOf, oversized } from '../../scripts/check-sizes.ts';

// File and function lengths (issue 31, STYLE.md habit 17): src/ files ≤ 400 lines, web/src files ≤ 300,
// functions ≤ 80 in both. An entry below may shrink, never grow; a new offender fails.

/** Being split (issue 31): the services and wiring other work is dividing by use case right now. */
const SRC_BEING_SPLIT: Record<string, number> = {
  'src/app.ts createApp': 168,
  'src/host/boot.ts assemble': 152,
  'src/modules/checkout/reconciliation.ts file': 474,
  'src/modules/checkout/stripe-events.ts applySession': 81,
  'src/modules/licenses/service.ts file': 544,
  'src/modules/mail/service.ts file': 441,
  'src/modules/mail/service.ts sendOnce': 103,
  'src/modules/sales/export/query.ts records': 82,
  'src/modules/sales/export/service.ts requestExport': 82,
  'src/modules/sales/receipt-pdf.ts renderReceiptPdf': 153,
  'src/modules/sales/receipt.ts file': 420,
  'src/modules/sales/receipt.ts issueReceipt': 91,
  'src/modules/sales/service.ts file': 690,
};

const ALLOWED: Record<string, number> = SRC_BEING_SPLIT;

describe('file and function lengths', () => {
  it('stay within the limits, apart from the listed files that are being split', () => {
    const over = oversized()
      .filter((o) => {
        const allowed = ALLOWED[`${o.file} ${o.name}`];
        return allowed === undefined || o.lines > allowed;
      })
      .map((o) => `${o.file}:${o.line} ${o.name} ${o.lines} > ${o.limit}`);
    expect(over).toEqual([]);
  });

  it('measures a function from its first line to its closing brace, components and methods alike', () => {
    const body = (n: number) => Array.from({ length: n }, (_, i) => `  const v${i} = ${i};`).join('\n');
    const code = [
      `export function Long() {\n${body(80)}\n  return null;\n}`,
      `const Short = () => {\n${body(10)}\n};`,
      `class A {\n  method() {\n${body(79)}\n  }\n}`,
      `use(() => {\n${body(85)}\n});`,
    ].join('\n');
    const found = longFunctionsOf('x.tsx', code);
    expect(found.map((f) => [f.name, f.lines])).toEqual([
      ['Long', 83],
      ['method', 81],
      ['<anonymous> > use(…)', 87],
    ]);
  });
});
