import fc from 'fast-check';

/**
 * One code point of any UTF-8 length, or a lone surrogate, each about as often: fast-check's own
 * `unit: 'binary'` draws from the same code points, but its first use builds a reverse table of all
 * 1.1 million of them (~3 s of CPU, more on a loaded machine), and its draws are mostly 4-byte
 * characters, a lone surrogate rare (none among 300 strings of seed 30).
 */
const anyCodePoint = fc
  .oneof(
    fc.integer({ min: 0, max: 0x7f }),
    fc.integer({ min: 0x80, max: 0x7ff }),
    fc.integer({ min: 0x800, max: 0xffff }),
    fc.integer({ min: 0xd800, max: 0xdfff }),
    fc.integer({ min: 0x10000, max: 0x10ffff }),
  )
  .map((point) => String.fromCodePoint(point));

/** Strings of any code points, lone surrogates (and pairs two of them happen to make) and NUL included. */
export const codePointText = (maxLength: number) => fc.string({ unit: anyCodePoint, maxLength });
