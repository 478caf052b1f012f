/**
 * RFC 8785 (JSON Canonicalization Scheme): the one serialisation of a JSON value that a receipt's
 * hashes cover, so that anyone holding the value (a contract, a verifier in another language) gets
 * the same bytes. Numbers and strings are written as ECMAScript's JSON.stringify writes them (RFC
 * 8785 3.2.2 adopts exactly that); object members are sorted by their names' UTF-16 code units
 * (3.2.3), which is JavaScript's default string order.
 */

export class CanonicalJsonError extends Error {
  override readonly name = 'CanonicalJsonError';
}

/** The canonical JSON text of `value`; throws on what JSON cannot hold (NaN, Infinity, a lone surrogate, a function). */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value === 'boolean') return JSON.stringify(value);
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new CanonicalJsonError(`${value} has no JSON form`);
    return JSON.stringify(value);
  }
  if (typeof value === 'string') return canonicalString(value);
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item ?? null)).join(',')}]`;
  if (typeof value === 'object') {
    const members = Object.entries(value as Record<string, unknown>)
      .filter(([, inner]) => inner !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([name, inner]) => `${canonicalString(name)}:${canonicalJson(inner)}`);
    return `{${members.join(',')}}`;
  }
  throw new CanonicalJsonError(`a ${typeof value} has no JSON form`);
}

/** I-JSON (RFC 7493), which RFC 8785 requires, holds no lone surrogate. */
function canonicalString(text: string): string {
  if (!text.isWellFormed()) throw new CanonicalJsonError('a string holds a lone UTF-16 surrogate');
  return JSON.stringify(text);
}

/** The UTF-8 bytes a receipt hashes. */
export const canonicalBytes = (value: unknown) => Buffer.from(canonicalJson(value), 'utf8');
