import { describe, expect, it } from 'vitest';
import { longFunctionsOf, oversized } from '../../scripts/check-sizes.ts';

// File and function lengths (issue 31, STYLE.md habit 17): src/ files ≤ 400 lines, web/src files ≤ 300,
// functions ≤ 80 in both, with no exceptions.

describe('file and function lengths', () => {
  it('stay within the limits', () => {
    const over = oversized().map((o) => `${o.file}:${o.line} ${o.name} ${o.lines} > ${o.limit}`);
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
