import { describe, expect, it } from 'vitest';
import { showsNavigation } from '../../web/src/app/route-meta.ts';
import { firstMessages } from '../../web/src/lib/api.ts';

describe('navigation rule (seed §2)', () => {
  it('shows the bar only on administrator and endUser routes that are not menus', () => {
    expect(showsNavigation({ type: 'administrator', isMenu: false })).toBe(true);
    expect(showsNavigation({ type: 'endUser', isMenu: false })).toBe(true);
    expect(showsNavigation({ type: 'administrator', isMenu: true })).toBe(false);
    expect(showsNavigation({ type: null, isMenu: false })).toBe(false);
    expect(showsNavigation(undefined)).toBe(false);
  });
});

describe('422 handling (seed §8)', () => {
  it('keeps the first message of each field', () => {
    expect(firstMessages({ email: ['一つ目', '二つ目'], name: ['名前'] })).toEqual({ email: '一つ目', name: '名前' });
    expect(firstMessages(undefined)).toEqual({});
  });
});
