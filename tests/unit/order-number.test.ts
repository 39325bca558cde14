import { describe, expect, it } from 'vitest';
import { newOrderNumber, ORDER_ALPHABET, ORDER_NUMBER_PATTERN, parseOrderNumber } from '../../src/modules/sales/index.ts';

describe('order numbers (docs/decisions/0030-order-numbers.md)', () => {
  it('are LS, the Japan year-month of the sale and 6 characters without I, L, O or U', () => {
    // 2026-11-30 15:30 UTC is 2026-12-01 00:30 in Japan.
    expect(newOrderNumber(new Date('2026-11-30T15:30:00Z'))).toMatch(/^LS-2612-[0-9A-HJKMNP-TV-Z]{6}$/);
    expect(newOrderNumber(new Date('2026-11-30T14:59:00Z'))).toMatch(/^LS-2611-/);
    expect(ORDER_ALPHABET).toHaveLength(32);
    expect(ORDER_ALPHABET).not.toMatch(/[ILOU]/);
    const drawn = Array.from({ length: 2000 }, () => newOrderNumber(new Date()));
    for (const number of drawn) expect(number).toMatch(ORDER_NUMBER_PATTERN);
    expect(new Set(drawn).size).toBe(drawn.length);
    // Every character of the alphabet turns up: the draw is not biased to a part of it.
    expect(new Set(drawn.flatMap((n) => [...n.slice(-6)])).size).toBe(32);
  });

  it('read what a person types: any case and width, hyphens or none, O for 0 and I or L for 1', () => {
    expect(parseOrderNumber('LS-2611-7K3Q9M')).toBe('LS-2611-7K3Q9M');
    expect(parseOrderNumber('ls26117k3q9m')).toBe('LS-2611-7K3Q9M');
    expect(parseOrderNumber(' ls 2611 7k3q9m ')).toBe('LS-2611-7K3Q9M');
    expect(parseOrderNumber('ＬＳ－２６１１－７Ｋ３Ｑ９Ｍ')).toBe('LS-2611-7K3Q9M');
    expect(parseOrderNumber('LS-2611-OIL000')).toBe('LS-2611-011000');
    expect(parseOrderNumber('LS-2611-7K3Q9')).toBeNull();
    expect(parseOrderNumber('LS-2611-7K3QUM')).toBeNull();
    expect(parseOrderNumber('佐藤')).toBeNull();
    expect(parseOrderNumber('member@example.jp')).toBeNull();
  });
});
