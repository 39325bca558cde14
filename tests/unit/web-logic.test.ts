import { describe, expect, it } from 'vitest';
import { showsNavigation } from '../../web/src/app/route-meta.ts';
import { firstMessages } from '../../web/src/lib/api.ts';
import { asSelect, formFields } from '../../web/src/lib/form-fields.ts';
import {
  formatDateTime,
  formatDateTimeSeconds,
  formatJapanTime,
  formatLongDate,
  formatMonthDayTime,
  japanMonth,
  japanToday,
} from '../../web/src/lib/japan-time.ts';

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

describe('Japan time (one module: web/src/lib/japan-time.ts)', () => {
  it('shows an instant as the date and time in Tokyo, whatever the zone', () => {
    const lateUtc = '2026-03-09T15:05:12Z';
    expect(formatDateTime(lateUtc)).toBe('2026/03/10 00:05');
    expect(formatDateTimeSeconds(lateUtc)).toBe('2026/03/10 00:05:12');
    expect(formatLongDate(lateUtc)).toBe('2026年3月10日');
    expect(formatMonthDayTime(lateUtc)).toBe('3月10日 00:05');
    expect(formatJapanTime(lateUtc)).toBe('2026/03/10 00:05（日本時間）');
    expect(japanToday(new Date('2026-03-31T15:30:00Z'))).toBe('2026-04-01');
    expect(japanMonth(0, new Date('2026-03-31T15:30:00Z'))).toBe('2026-04');
    expect(japanMonth(4, new Date('2026-03-31T15:30:00Z'))).toBe('2025-12');
  });

  it('is the only place in the SPA that names the zone', async () => {
    const { readdirSync, readFileSync } = await import('node:fs');
    const root = new URL('../../web/src/', import.meta.url);
    const files = readdirSync(root, { recursive: true, encoding: 'utf8' }).filter((f) => /\.tsx?$/.test(f));
    const naming = files.filter((f) => /Asia\/Tokyo|timeZone/.test(readFileSync(new URL(f, root), 'utf8')));
    expect(naming).toEqual(['lib/japan-time.ts']);
  });
});

describe('field(name): one way a form wires a text field', () => {
  it('gives the label, the value, the first 422 message and a change that keeps the other values', () => {
    let values = { email: 'a@example.jp', password: '' };
    const field = formFields(
      values,
      (next) => (values = next),
      { email: 'メールアドレスの形式が正しくありません。' },
      {
        email: 'メールアドレス',
        password: 'パスワード',
      },
    );
    expect(field('email')).toMatchObject({
      name: 'email',
      label: 'メールアドレス',
      value: 'a@example.jp',
      message: 'メールアドレスの形式が正しくありません。',
    });
    expect(field('password').message).toBeUndefined();
    field('password').onInput('secret');
    expect(values).toEqual({ email: 'a@example.jp', password: 'secret' });
    const select = asSelect(field('email'));
    select.onChange('b@example.jp');
    expect(select.label).toBe('メールアドレス');
    expect(values.email).toBe('b@example.jp');
  });
});
