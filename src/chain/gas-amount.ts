import { formatDecimal, parseDecimal } from './decimal.ts';

/** GAS has 8 decimals: the chain counts it in fractions of 10^-8. */
const gasDecimals = 8;

/** `"5.5"` GAS in fractions; the schemas that take GAS amounts allow at most 8 decimals. */
export function gasUnits(text: string): bigint {
  const { digits, scale } = parseDecimal(text)!;
  return digits * 10n ** BigInt(gasDecimals - scale);
}

/** GAS fractions as GAS: `"5.5"`. */
export const gasText = (units: bigint) => formatDecimal({ digits: units, scale: gasDecimals });
