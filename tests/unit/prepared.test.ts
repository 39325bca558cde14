import { describe, expect, it } from 'vitest';
import { prepared, queries } from '../../src/db/kysely.ts';

// prepared (src/db/kysely.ts): compiled once, bound per call, the same text and parameters as building
// the query each time.
const page = (published: boolean) =>
  prepared((limit: number, offset: number) =>
    queries
      .selectFrom('licenses as l')
      .select(['l.id', 'l.name'])
      .where('l.published', '=', published)
      .orderBy('l.sort_order')
      .limit(limit)
      .offset(offset),
  );

describe('prepared', () => {
  it('binds each call’s values where building the query would put them', () => {
    const statement = page(true);
    for (const [limit, offset] of [
      [20, 0],
      [50, 100],
    ] as const) {
      const direct = queries
        .selectFrom('licenses as l')
        .select(['l.id', 'l.name'])
        .where('l.published', '=', true)
        .orderBy('l.sort_order')
        .limit(limit)
        .offset(offset)
        .compile();
      const bound = statement(limit, offset).compile();
      expect(bound.sql).toBe(direct.sql);
      expect(bound.parameters).toEqual(direct.parameters);
    }
    expect(statement(20, 0).key).not.toBe(statement(20, 20).key);
  });

  it('keeps a value that only looks like an argument, and refuses an argument that shapes the text', () => {
    const token = prepared((value: string) => queries.selectFrom('sessions').select('token').where('token', '=', value));
    expect(token("'; drop table sessions --").compile().parameters).toEqual(["'; drop table sessions --"]);
    const shaping = prepared((column: string) => queries.selectFrom('sessions').select(column === 'token' ? 'token' : 'user_id'));
    expect(() => shaping('token')).toThrow(/does not reach the statement as a parameter/);
  });
});
