import fc from 'fast-check';
import { Hono } from 'hono';
import { expect, it } from 'vitest';
import { queryOf } from '../../src/http/validate.ts';

// queryOf (src/http/validate.ts) reads the query string as Hono's c.req.query() does, into a plain
// object: the same names and values for any query, with `__proto__` the one name it drops.
const app = new Hono().get('/q', (c) => c.json({ hono: { ...c.req.query() }, ours: queryOf(c) }));

const piece = fc.oneof(
  fc.constantFrom(
    'page',
    'per_page',
    'q',
    'status',
    '=',
    '&',
    '+',
    '%',
    '%2',
    '%41',
    '%E3%81%82',
    '%ZZ',
    '#',
    'あ',
    ' ',
    '',
    '__proto__',
    'constructor',
    'toString',
  ),
  fc.string({ maxLength: 3 }),
);

it('reads any query string as c.req.query() reads it', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(piece, { maxLength: 12 }), async (pieces) => {
      const search = pieces.join('');
      let url: string;
      try {
        url = new URL(`http://shop.test/q?${search}`).href;
      } catch {
        return;
      }
      const res = await app.request(url);
      const { hono, ours } = (await res.json()) as { hono: Record<string, string>; ours: Record<string, string> };
      Reflect.deleteProperty(hono, '__proto__');
      expect(ours).toEqual(hono);
    }),
    { numRuns: 2_000 },
  );
});

it('keeps the first of a repeated name, decodes + and %, and keeps a parameter without =', async () => {
  const res = await app.request('/q?page=2&page=3&q=%E4%BD%90%E8%97%A4+%E5%A4%AA%E9%83%8E&flag&=x&bad=%ZZ');
  const { ours } = (await res.json()) as { ours: Record<string, string> };
  expect(ours).toEqual({ page: '2', q: '佐藤 太郎', flag: '', bad: '%ZZ' });
});
