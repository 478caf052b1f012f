import fc from 'fast-check';
import { codePointText } from './code-point-text.ts';

/** Text PostgreSQL, JSON or a parser might choke on, beside whatever fast-check makes up. */
const awkwardTexts = [
  '',
  ' padded ',
  'NULL',
  'null',
  '\u0000',
  'a\u0000b',
  '\ud800',
  '\udfff',
  'x\ud83dy',
  '\ud83d\ude00',
  '\u202e',
  '../../etc/passwd',
  '%00',
  '0x' + 'ab'.repeat(20),
  '9'.repeat(400),
  'x'.repeat(70_000),
];

/** Strings of any code unit, lone surrogates and NUL included. */
export const anyText = fc.oneof(
  { weight: 3, arbitrary: codePointText(40) },
  {
    weight: 2,
    arbitrary: fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((unit) => String.fromCharCode(unit)) }),
  },
  { weight: 2, arbitrary: fc.constantFrom(...awkwardTexts) },
);

const anyNumber = fc.oneof(
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom(0, -0, 1e308, -1e308, 2 ** 53 + 2, Number.MAX_SAFE_INTEGER, 1.5, -1),
);

/** Any JSON value, shallow or nested, with awkward strings at every level and as keys. */
export const anyJson: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constantFrom(null, true, false),
    anyNumber,
    anyText,
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(anyText, tie('value'), { maxKeys: 4 }),
  ),
})).value;

/** Nesting far beyond anything a client means, within the 1 MiB body limit. */
const deeplyNested = fc
  .integer({ min: 50, max: 200_000 })
  .chain((depth) =>
    fc.constantFrom(
      `${'['.repeat(depth)}${']'.repeat(depth)}`,
      `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`,
      `{"params":${'['.repeat(depth)}${']'.repeat(depth)}}`,
    ),
  );

/** Bodies no JSON encoder would write: broken syntax, numbers beyond doubles, escapes of NUL and lone surrogates. */
export const rawBodyText = fc.oneof(
  deeplyNested,
  fc.bigInt({ min: -(10n ** 400n), max: 10n ** 400n }).map((n) => `{"timeout":${n},"limit":${n}}`),
  fc.constantFrom(
    '',
    '{',
    '}',
    'null',
    '[]',
    '"text"',
    '{"a":1e999999}',
    '{"a":-1e-999999}',
    '{"name":"\\ud800"}',
    '{"\\udc00":1}',
    '{"name":"a\\u0000"}',
    '{"__proto__":{"admin":true}}',
    '{"constructor":{"prototype":{"x":1}}}',
    '{"a":1,"a":2}',
    '\ufeff{}',
  ),
  codePointText(60),
);

/** Percent-encodes each byte, so any byte sequence (invalid UTF-8, NUL, `/`) fits in a URL. */
const percentEncoded = (bytes: Uint8Array) =>
  [...bytes].map((byte) => `%${byte.toString(16).padStart(2, '0')}`).join('');

/** A path segment or query component: plain, percent-encoded bytes of any kind, or a known troublemaker. */
export const urlComponent = fc.oneof(
  { weight: 6, arbitrary: fc.stringMatching(/^[A-Za-z0-9_.~-]{0,30}$/) },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 12 }).map(percentEncoded) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '%ED%A0%80',
      '%ed%bf%bf',
      '%00',
      '%C0%80',
      '%FF',
      '%',
      '%zz',
      '..',
      '%2e%2e',
      '%2F',
      'x'.repeat(5000),
    ),
  },
);

/** Values a filter or a page might plausibly be given, right or just wrong. */
const queryValue = fc.oneof(
  urlComponent,
  fc.constantFrom('0', '1', '20', '100', '101', '-1', '1.5', '1e1', 'true', 'false', 'active', 'schedule'),
  fc.constantFrom('node18', 'asc', 'desc', 'name', 'completed', 'failure', '2026-01-01T00:00:00.000Z', 'not-a-date'),
);

/** A query string of known and unknown keys, often none. */
export function queryString(knownKeys: string[]) {
  const key = knownKeys.length
    ? fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...knownKeys) }, urlComponent)
    : urlComponent;
  const pairs = fc.array(fc.tuple(key, queryValue), { minLength: 1, maxLength: 4 });
  return fc.option(
    pairs.map((list) => `?${list.map(([k, v]) => `${k}=${v}`).join('&')}`),
    { nil: '' },
  );
}

/** A valid body with one leaf (or the whole of it) replaced by anything, or a field added. */
export function mutated(template: Record<string, unknown>) {
  const paths = leafPaths(template);
  return fc.oneof(
    fc.tuple(fc.constantFrom(...paths), anyJson).map(([path, value]) => replaced(template, path, value)),
    fc.tuple(anyText, anyJson).map(([key, value]) => ({ ...template, [key]: value })),
    fc.constant(template),
  );
}

function leafPaths(value: unknown, prefix: string[] = []): string[][] {
  if (typeof value !== 'object' || value === null) return [prefix];
  const entries = Object.entries(value);
  return [prefix, ...entries.flatMap(([key, child]) => leafPaths(child, [...prefix, key]))];
}

function replaced(template: unknown, path: string[], value: unknown): unknown {
  if (path.length === 0) return value;
  const [head, ...rest] = path as [string, ...string[]];
  const copy = (Array.isArray(template) ? [...template] : { ...(template as object) }) as Record<string, unknown>;
  copy[head] = replaced(copy[head], rest, value);
  return copy;
}
