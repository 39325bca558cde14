import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { API_SCHEMA, renderApiTypes } from '../../scripts/api-types.ts';

const root = resolve(import.meta.dirname, '../..');

describe('web/src/lib/api-schema.d.ts', () => {
  it('is what `npm run api:types` makes of the document the routes describe today (regenerate it when this fails)', async () => {
    const generated = await renderApiTypes();
    expect(generated).toContain('"/api/sales": {');
    expect(readFileSync(join(root, API_SCHEMA), 'utf8') === generated).toBe(true);
  });
});
