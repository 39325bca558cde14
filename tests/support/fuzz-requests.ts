import fc from 'fast-check';
import type { OperationEntry } from './contract.ts';
import { invalidObject, invalidParameter, mergeAll, oddText, type Resolve, type Schema, valid } from './fuzz-arbitraries.ts';

/** One request the fuzzer sends: what it is (valid or invalid, and how), and its parts. */
export interface FuzzRequest {
  kind: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string | FormData;
}

interface Parameter {
  in: string;
  name: string;
  required?: boolean;
  schema?: Schema;
}

/** Sent as they are: percent-encodings a client may send broken. */
const RAW_PATH_VALUES = new Set(['%', '%ZZ', '%00']);

/** Existing records, so that valid requests also reach them (reads only: an unsafe call gets random ids). */
export interface KnownIds {
  number: string[];
  uuid: string[];
}

function pathValue(parameter: Parameter, known: KnownIds, safe: boolean): fc.Arbitrary<string> {
  const pattern = String(parameter.schema?.pattern ?? '');
  const pool = pattern.includes('0-9a-f') ? known.uuid : pattern.includes('0-9') ? known.number : [];
  const random = valid(parameter.schema ?? { type: 'string' }, (s) => s) as fc.Arbitrary<string>;
  return safe && pool.length ? fc.oneof(fc.constantFrom(...pool), random) : random;
}

/** Percent-encoded as a client would (a lone surrogate as U+FFFD), or raw when it is one of the broken encodings. */
const encode = (value: string) => (RAW_PATH_VALUES.has(value) ? value : encodeURIComponent(value.toWellFormed()));

function fillPath(template: string, values: Record<string, string>): string {
  return template.replace(/\{([^}]+)\}/g, (_, name: string) => encode(values[name] ?? 'x'));
}

const queryString = (values: [string, string][]) =>
  values.length ? `?${values.map(([k, v]) => `${encode(k)}=${encode(v)}`).join('&')}` : '';

type Body = Pick<FuzzRequest, 'body' | 'headers'>;

function multipart(fields: Record<string, unknown>, files: Uint8Array[]): FormData {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields))
    form.append(name, typeof value === 'string' ? value : JSON.stringify(value));
  for (const [i, bytes] of files.entries())
    form.append(`file[${i}]`, new Blob([new Uint8Array(bytes)], { type: 'image/png' }), `p${i}.png`);
  return form;
}

/** The body of a request: valid for its media type and schema, or broken in one of the ways a client breaks one. */
function bodyArbitraries(media: string | undefined, shape: Schema | undefined, resolve: Resolve) {
  const validBody: fc.Arbitrary<Body> =
    media === 'application/json' && shape
      ? valid(shape, resolve).map((value) => ({ body: JSON.stringify(value), headers: { 'content-type': media } }))
      : media === 'multipart/form-data' && shape
        ? fc
            .tuple(
              valid({ ...shape, patternProperties: undefined }, resolve),
              fc.array(fc.uint8Array({ maxLength: 64 }), { maxLength: 2 }),
            )
            .map(([fields, files]) => ({ body: multipart(fields as Record<string, unknown>, files), headers: {} }))
        : media
          ? fc.json().map((text) => ({ body: text, headers: { 'content-type': media } }))
          : fc.constant({ headers: {} });
  const invalidBody: fc.Arbitrary<Body> = fc.oneof(
    invalidObject(shape, resolve).map((value) => ({
      body: JSON.stringify(value),
      headers: { 'content-type': 'application/json' },
    })),
    fc
      .constantFrom('{"a":', '', 'null', '\u0000', '{"a":1}{"b":2}')
      .map((text) => ({ body: text, headers: { 'content-type': 'application/json' } })),
    oddText().map((text) => ({ body: text, headers: { 'content-type': 'text/plain' } })),
    fc.constant({
      body: '--x\r\nContent-Disposition: form-data; name="file[0]"\r\n\r\nx\r\n',
      headers: { 'content-type': 'multipart/form-data; boundary=x' },
    }),
  );
  return { validBody, invalidBody };
}

/** The operation's request parts, as arbitraries: valid ones and each way to break one part. */
export function requestArbitrary(
  entry: OperationEntry,
  resolve: Resolve,
  known: KnownIds,
  allowed = true,
): {
  valid: fc.Arbitrary<FuzzRequest>;
  invalid: fc.Arbitrary<FuzzRequest>;
} {
  const op = entry.operation as unknown as {
    parameters?: Parameter[];
    requestBody?: { content: Record<string, { schema?: Schema }> };
  };
  const safe = entry.method === 'GET';
  const params = op.parameters ?? [];
  const pathParams = params.filter((p) => p.in === 'path');
  const queryParams = params.filter((p) => p.in === 'query');
  const headerParams = params.filter((p) => p.in === 'header');
  // A caller the operation refuses is answered before any body is read, and the connection closed with
  // the body unread (src/app.ts): a body then only races the reset, so such calls are sent without one.
  const [media, content] = allowed ? (Object.entries(op.requestBody?.content ?? {})[0] ?? []) : [];
  const bodySchema = content?.schema ? resolve(content.schema) : undefined;
  const shape = bodySchema && Array.isArray(bodySchema.allOf) ? mergeAll(bodySchema.allOf as Schema[], resolve) : bodySchema;

  const pathArb = fc.record(Object.fromEntries(pathParams.map((p) => [p.name, pathValue(p, known, safe)])));
  const queryArb = fc
    .tuple(...queryParams.map((p) => fc.option(valid(p.schema, resolve).map(String), { nil: undefined })))
    .map((values) =>
      queryParams.flatMap((p, i) => (values[i] === undefined ? [] : [[p.name, values[i] as string] as [string, string]])),
    );
  const headers = Object.fromEntries(headerParams.map((p) => [p.name, 't=1,v1=00']));

  const { validBody, invalidBody } = bodyArbitraries(media, shape, resolve);

  const build = (kind: string, values: Record<string, string>, query: [string, string][], body: Body): FuzzRequest => ({
    kind,
    method: entry.method,
    path: fillPath(entry.template, values) + queryString(query),
    headers: { ...headers, ...body.headers },
    body: body.body,
  });
  const validRequest = fc.tuple(pathArb, queryArb, validBody).map(([p, q, b]) => build('valid', p, q, b));
  const broken: fc.Arbitrary<FuzzRequest>[] = [];
  if (pathParams.length) {
    broken.push(
      fc
        .tuple(pathArb, fc.constantFrom(...pathParams.map((p) => p.name)), invalidParameter(), queryArb, validBody)
        .map(([p, name, bad, q, b]) => build('bad path id', { ...p, [name]: bad }, q, b)),
    );
  }
  if (queryParams.length) {
    broken.push(
      fc
        .tuple(pathArb, queryArb, fc.constantFrom(...queryParams.map((p) => p.name)), invalidParameter(), validBody)
        .map(([p, q, name, bad, b]) =>
          build('bad query', p, [...q.filter(([k]) => k !== name), [name, bad], [name, 'again']], b),
        ),
    );
  }
  if (media) broken.push(fc.tuple(pathArb, queryArb, invalidBody).map(([p, q, b]) => build('bad body', p, q, b)));
  broken.push(fc.tuple(pathArb, queryArb).map(([p, q]) => build('no body', p, q, { headers: {} })));
  return { valid: validRequest, invalid: fc.oneof(...broken) };
}
