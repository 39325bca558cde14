import fc from 'fast-check';

/**
 * fast-check arbitraries from the OpenAPI document's JSON Schemas (2020-12, as hono-openapi writes
 * them): `valid` follows the schema, `invalid` breaks it the ways Schemathesis does — wrong types,
 * missing required fields, huge strings, odd unicode, unknown fields, deep nesting.
 */

export type Schema = Record<string, unknown>;
export type Resolve = (schema: Schema) => Schema;

/** Texts no form expects: controls, bidi overrides, lone surrogates, emoji, combining marks, full-width. */
export const ODD_TEXTS = [
  '\u0000',
  'a\u0007b',
  '\u202eevil',
  '\ud800',
  'x\udfffy',
  '😀👨‍👩‍👧',
  'e\u0301\u0301\u0301',
  '１２３',
  '𠮷野家',
  '\r\n\t',
  ' ',
  '%00%ZZ',
  "' or 1=1 --",
  '<script>alert(1)</script>',
  '../../etc/passwd',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a log-injection probe, sent as literal text
  '${jndi:ldap://x}',
];

/**
 * Far past every length a field allows. In a body 70,000 characters (210 KB, under the 1 MB limit); in
 * a URL 1,000 (9 KB encoded: past 16 KB Node's HTTP parser answers 431 before the shop sees it).
 */
const HUGE = 'あ'.repeat(70_000);
const LONG = 'あ'.repeat(1_000);

export const oddText = (huge = HUGE): fc.Arbitrary<string> =>
  fc.oneof(fc.constantFrom(...ODD_TEXTS), fc.string({ unit: 'binary', maxLength: 40 }), fc.constant(huge));

function stringArbitrary(schema: Schema): fc.Arbitrary<string> {
  if (typeof schema.pattern === 'string') {
    try {
      return fc.stringMatching(new RegExp(schema.pattern)).filter((s) => s.length <= 300);
    } catch {
      // A pattern fast-check cannot read: any text.
    }
  }
  if (schema.format === 'email') return fc.emailAddress();
  if (schema.format === 'date-time') {
    return fc.date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }).map((d) => d.toISOString());
  }
  if (schema.format === 'uuid') return fc.uuid();
  const minLength = typeof schema.minLength === 'number' ? schema.minLength : 0;
  const maxLength = Math.min(typeof schema.maxLength === 'number' ? schema.maxLength : 40, 60);
  return fc.string({ minLength: Math.min(minLength, maxLength), maxLength: Math.max(minLength, maxLength) });
}

function numberArbitrary(schema: Schema, integer: boolean): fc.Arbitrary<number> {
  const min = typeof schema.minimum === 'number' ? schema.minimum : -1_000_000;
  const max = typeof schema.maximum === 'number' ? schema.maximum : 1_000_000_000;
  return integer || schema.type === 'integer'
    ? fc.integer({ min: Math.ceil(min), max: Math.floor(max) })
    : fc.double({ min, max, noNaN: true, noDefaultInfinity: true });
}

/** A value `schema` accepts (as far as JSON Schema says: valibot's own checks may still refuse it). */
export function valid(schema: Schema | undefined, resolve: Resolve, depth = 0): fc.Arbitrary<unknown> {
  if (!schema || depth > 6) return fc.constant(null);
  const s = resolve(schema);
  if ('const' in s) return fc.constant(s.const);
  if (Array.isArray(s.enum) && s.enum.length) return fc.constantFrom(...s.enum);
  const options = (s.anyOf ?? s.oneOf) as Schema[] | undefined;
  if (options?.length) return fc.oneof(...options.map((o) => valid(o, resolve, depth + 1)));
  if (Array.isArray(s.allOf)) return objectArbitrary(mergeAll(s.allOf as Schema[], resolve), resolve, depth);
  const type = Array.isArray(s.type) ? s.type[0] : s.type;
  switch (type) {
    case 'string':
      return stringArbitrary(s);
    case 'integer':
      return numberArbitrary(s, true);
    case 'number':
      return numberArbitrary(s, false);
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array':
      return fc.array(valid(s.items as Schema, resolve, depth + 1), {
        minLength: typeof s.minItems === 'number' ? Math.min(s.minItems, 5) : 0,
        maxLength: 5,
      });
    case 'object':
      return objectArbitrary(s, resolve, depth);
    default:
      return fc.oneof(fc.string(), fc.integer(), fc.boolean());
  }
}

/** The properties and required fields of several object schemas as one. */
export function mergeAll(schemas: Schema[], resolve: Resolve): Schema {
  const merged: { type: string; properties: Record<string, Schema>; required: string[] } = {
    type: 'object',
    properties: {},
    required: [],
  };
  for (const part of schemas.map(resolve)) {
    Object.assign(merged.properties, (part.properties as Record<string, Schema>) ?? {});
    merged.required.push(...((part.required as string[]) ?? []));
  }
  return merged;
}

function objectArbitrary(s: Schema, resolve: Resolve, depth: number): fc.Arbitrary<Record<string, unknown>> {
  const properties = (s.properties as Record<string, Schema>) ?? {};
  const required = new Set((s.required as string[]) ?? []);
  const model: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [name, property] of Object.entries(properties)) model[name] = valid(property, resolve, depth + 1);
  return fc.record(model, { requiredKeys: Object.keys(properties).filter((name) => required.has(name)) });
}

/** A value of another type than the schema's. */
const wrongType = (): fc.Arbitrary<unknown> =>
  fc.oneof(
    fc.integer(),
    fc.double(),
    fc.boolean(),
    fc.constant(null),
    fc.array(fc.integer(), { maxLength: 3 }),
    fc.dictionary(fc.string({ maxLength: 5 }), fc.string({ maxLength: 5 }), { maxKeys: 3 }),
    oddText(),
  );

const nested = (depth: number): unknown => (depth === 0 ? 1 : { a: [nested(depth - 1)] });

/** An object body `schema` refuses: one field broken, a required one missing, unknown keys, or no object at all. */
export function invalidObject(schema: Schema | undefined, resolve: Resolve): fc.Arbitrary<unknown> {
  const s = schema ? resolve(schema) : {};
  const shape = Array.isArray(s.allOf) ? mergeAll(s.allOf as Schema[], resolve) : s;
  const properties = Object.keys((shape.properties as Record<string, unknown>) ?? {});
  const base = valid(shape, resolve) as fc.Arbitrary<Record<string, unknown>>;
  const mutations: fc.Arbitrary<unknown>[] = [
    fc.constantFrom<unknown>([], 'text', 0, null, nested(40)),
    base.map((body) => ({ ...body, $unknown: 'x', ['__proto__']: { polluted: true } })),
  ];
  if (properties.length) {
    const field = fc.constantFrom(...properties);
    mutations.push(
      fc.tuple(base, field, wrongType()).map(([body, name, value]) => ({ ...body, [name]: value })),
      fc.tuple(base, field).map(([body, name]) => {
        const copy = { ...body };
        delete copy[name];
        return copy;
      }),
      fc.tuple(base, field, oddText()).map(([body, name, value]) => ({ ...body, [name]: value })),
    );
  }
  return fc.oneof(...mutations);
}

/** A query or path value the parameter refuses. */
export const invalidParameter = (): fc.Arbitrary<string> =>
  fc.oneof(
    fc.constantFrom('', '0', '01', '-1', '1.5', '1e3', '99999999999999999999', 'abc', 'true', 'null', '[]', '%', '%ZZ', '%00'),
    oddText(LONG),
  );
