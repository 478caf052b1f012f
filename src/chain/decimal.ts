/**
 * Decimal numbers as text, compared exactly: prices such as 0.30000000000000004 and 0.3 must not
 * collapse into the same binary float.
 */

/** `digits / 10^scale`. */
interface Decimal {
  digits: bigint;
  scale: number;
}

/** What the API accepts as a price: a plain decimal, no exponent. */
export const decimalPattern = /^-?\d+(\.\d+)?$/;

/**
 * The longest decimal text taken, from a request or a price source: far more digits than any price
 * needs, and few enough that parsing and comparing stay cheap on the worker's shared thread.
 */
export const maxDecimalChars = 64;

// JSON number text (which String(number) produces) may carry an exponent: 1e-7, 1.5e+21.
const numberText = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;

// Far beyond any double (about 1e±324), and small enough that 10^exponent stays cheap.
const maxExponent = 1000;

/** Parses decimal or JSON number text; null when it is neither, or longer than maxDecimalChars. */
export function parseDecimal(text: string): Decimal | null {
  if (text.length > maxDecimalChars) return null;
  const match = numberText.exec(text);
  if (!match) return null;
  const [, sign = '', whole = '', fraction = '', exponentText = '0'] = match;
  const exponent = Number(exponentText);
  if (Math.abs(exponent) > maxExponent) return null;
  const digits = BigInt(`${sign}${whole}${fraction}`);
  const scale = fraction.length - exponent;
  return scale >= 0 ? { digits, scale } : { digits: digits * 10n ** BigInt(-scale), scale: 0 };
}

/** The plain decimal text of `decimal`, without trailing fraction zeros: matches decimalPattern. */
export function formatDecimal({ digits, scale }: Decimal): string {
  const sign = digits < 0n ? '-' : '';
  const text = (digits < 0n ? -digits : digits).toString().padStart(scale + 1, '0');
  const whole = text.slice(0, text.length - scale);
  const fraction = text.slice(text.length - scale).replace(/0+$/, '');
  const magnitude = fraction ? `${whole}.${fraction}` : whole;
  return magnitude === '0' ? '0' : `${sign}${magnitude}`;
}

/** -1, 0 or 1 as `a` is less than, equal to or greater than `b`; throws when either is not a number. */
export function compareDecimals(a: string, b: string): -1 | 0 | 1 {
  const x = decimalOrThrow(a);
  const y = decimalOrThrow(b);
  const scale = Math.max(x.scale, y.scale);
  const left = x.digits * 10n ** BigInt(scale - x.scale);
  const right = y.digits * 10n ** BigInt(scale - y.scale);
  return left < right ? -1 : left > right ? 1 : 0;
}

function decimalOrThrow(text: string): Decimal {
  const decimal = parseDecimal(text);
  if (!decimal) throw new Error(`${JSON.stringify(text)} is not a decimal number`);
  return decimal;
}
