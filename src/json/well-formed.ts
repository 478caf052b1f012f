// An escaped lone surrogate in JSON text: `\ud800`–`\udfff` (paired ones match too, and are kept).
const escapedSurrogate = /\\u[dD][89a-fA-F]/;

/**
 * The value parsed from `json` with every string and key well-formed: lone UTF-16 surrogates, which
 * JSON can carry but PostgreSQL cannot store, become U+FFFD. Text without such escapes (nearly
 * all) is parsed as is; `json` must already be bounded in size and depth.
 */
export function parseWellFormed(json: string): unknown {
  const value: unknown = JSON.parse(json);
  return escapedSurrogate.test(json) ? wellFormed(value) : value;
}

function wellFormed(value: unknown): unknown {
  if (typeof value === 'string') return value.toWellFormed();
  if (Array.isArray(value)) return value.map(wellFormed);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key.toWellFormed(), wellFormed(inner)]));
}
