import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  compareDecimals,
  decimalPattern,
  formatDecimal,
  maxDecimalChars,
  parseDecimal,
} from '../../src/chain/decimal.ts';

/** `digits / 10^scale` written out as plain decimal text, e.g. (-5n, 3) → "-0.005". */
function plain(digits: bigint, scale: number): string {
  const sign = digits < 0n ? '-' : '';
  const text = (digits < 0n ? -digits : digits).toString().padStart(scale + 1, '0');
  return scale === 0 ? `${sign}${text}` : `${sign}${text.slice(0, -scale)}.${text.slice(-scale)}`;
}

const scaled = fc.record({ digits: fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }), scale: fc.nat({ max: 20 }) });

describe('decimal prices', () => {
  it.each([
    ['12', { digits: 12n, scale: 0 }],
    ['-0.5', { digits: -5n, scale: 1 }],
    ['12.3400', { digits: 123400n, scale: 4 }],
    ['1e-7', { digits: 1n, scale: 7 }],
    ['1.5E+3', { digits: 1500n, scale: 0 }],
    ['2.5e-3', { digits: 25n, scale: 4 }],
    ['1e+21', { digits: 10n ** 21n, scale: 0 }],
  ])('parses %j', (text, decimal) => {
    expect(parseDecimal(text)).toEqual(decimal);
  });

  it.each(['', '-', '.5', '5.', '+1', '1,5', '0x10', '1e', '1e1000000', 'NaN', 'Infinity', ' 1', '1 '])(
    'refuses %j',
    (text) => {
      expect(parseDecimal(text)).toBeNull();
    },
  );

  it('tells apart numbers that one float would merge', () => {
    expect(compareDecimals('0.30000000000000004', '0.3')).toBe(1);
    expect(compareDecimals('0.3', '0.30000000000000004')).toBe(-1);
    expect(compareDecimals('9007199254740993', '9007199254740992')).toBe(1);
  });

  it('ignores trailing zeros and exponent notation', () => {
    expect(compareDecimals('12.3400', '12.34')).toBe(0);
    expect(compareDecimals('1.5E+3', '1500')).toBe(0);
    expect(compareDecimals(String(0.0000001), '0.0000001')).toBe(0);
    expect(compareDecimals('-0', '0')).toBe(0);
    expect(compareDecimals('-1', '-0.5')).toBe(-1);
  });

  it('reads no number from text longer than maxDecimalChars', () => {
    expect(parseDecimal('1'.repeat(maxDecimalChars))).toEqual({
      digits: BigInt('1'.repeat(maxDecimalChars)),
      scale: 0,
    });
    expect(parseDecimal('1'.repeat(maxDecimalChars + 1))).toBeNull();
    expect(parseDecimal('9'.repeat(1_000_000))).toBeNull();
  });

  it('refuses to compare what is not a number', () => {
    expect(() => compareDecimals('abc', '1')).toThrow('"abc" is not a decimal number');
    expect(() => compareDecimals('1', '')).toThrow('"" is not a decimal number');
  });

  it('agrees with integer arithmetic on the scaled values', () => {
    fc.assert(
      fc.property(scaled, scaled, (a, b) => {
        const left = a.digits * 10n ** BigInt(b.scale);
        const right = b.digits * 10n ** BigInt(a.scale);
        const expected = left < right ? -1 : left > right ? 1 : 0;
        expect(compareDecimals(plain(a.digits, a.scale), plain(b.digits, b.scale))).toBe(expected);
      }),
    );
  });

  it('orders neighbours that differ in the last of many digits', () => {
    fc.assert(
      fc.property(scaled, fc.integer({ min: -2, max: 2 }), ({ digits, scale }, delta) => {
        const expected = delta > 0 ? -1 : delta < 0 ? 1 : 0;
        expect(compareDecimals(plain(digits, scale), plain(digits + BigInt(delta), scale))).toBe(expected);
      }),
    );
  });

  it('is antisymmetric, also across exponent notation', () => {
    fc.assert(
      fc.property(scaled, scaled, (a, b) => {
        const x = plain(a.digits, a.scale);
        const y = `${b.digits}e-${b.scale}`;
        expect(compareDecimals(x, y)).toBe(-compareDecimals(y, x) || 0);
      }),
    );
  });

  it('reads any JavaScript number as that number', () => {
    fc.assert(
      fc.property(
        fc.double({ noNaN: true, noDefaultInfinity: true }),
        fc.double({ noNaN: true, noDefaultInfinity: true }),
        (a, b) => {
          const expected = a < b ? -1 : a > b ? 1 : 0;
          expect(compareDecimals(String(a), String(b))).toBe(expected);
        },
      ),
    );
  });

  it('writes decimals back as plain text the API accepts', () => {
    expect(formatDecimal({ digits: -5n, scale: 3 })).toBe('-0.005');
    expect(formatDecimal({ digits: 123400n, scale: 4 })).toBe('12.34');
    expect(formatDecimal({ digits: -0n, scale: 2 })).toBe('0');
    fc.assert(
      fc.property(scaled, ({ digits, scale }) => {
        const text = formatDecimal({ digits, scale });
        expect(text).toMatch(decimalPattern);
        expect(compareDecimals(text, plain(digits, scale))).toBe(0);
      }),
    );
  });

  it.each([
    ['12', true],
    ['-0.5', true],
    ['12.3400', true],
    ['1e-7', false],
    ['.5', false],
    ['1.', false],
    ['', false],
  ])('accepts %j as a price value: %s', (text, accepted) => {
    expect(decimalPattern.test(text)).toBe(accepted);
  });
});
