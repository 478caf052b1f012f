import { maskSecrets, minMaskedChars } from '../secrets/mask.ts';

/** The caps of what a run's code sends out: docs/functions.md and docs/security.md list them. */
export const outputLimits = {
  logLines: 1_000,
  logLineBytes: 4 * 1024,
  errorNameBytes: 256,
  errorMessageBytes: 16 * 1024,
  errorStackBytes: 16 * 1024,
} as const;

/**
 * Turns text the run's code produced (a log line, an error's name, message or stack) into what is
 * stored and served: granted secret values masked first, then cut to `maxBytes` of UTF-8, with
 * lone surrogates (which PostgreSQL cannot store) replaced by U+FFFD. Masking before the cut means
 * a cut can never leave part of a secret: any value starting before the cut is whole in the
 * `slackChars` beyond it, which the isolate also sends. Masking writes no more than the cut keeps
 * (`maxBytes` UTF-16 units hold at least `maxBytes` bytes; one more keeps a pair split there out).
 */
export interface OutputText {
  /** How much longer than a cap the isolate may send a text: the longest granted value. */
  slackChars: number;
  text(value: string, maxBytes: number): string;
}

export function outputText(secrets: readonly { name: string; value: string }[]): OutputText {
  const slackChars = secrets
    .filter((secret) => secret.value.length >= minMaskedChars)
    .reduce((longest, secret) => Math.max(longest, secret.value.length), 0);
  return {
    slackChars,
    text: (value, maxBytes) =>
      truncateUtf8(maskSecrets(value.slice(0, maxBytes + slackChars), secrets, maxBytes + 1).toWellFormed(), maxBytes),
  };
}

/** Cuts to at most `maxBytes` of UTF-8 without splitting a character. */
export function truncateUtf8(text: string, maxBytes: number): string {
  // Each UTF-16 unit is at most 3 bytes of UTF-8: short texts need no encoding to know they fit.
  if (text.length * 3 <= maxBytes) return text;
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= maxBytes) return text;
  // A partial sequence at the cut decodes to U+FFFD; dropping it keeps the text clean.
  return bytes
    .subarray(0, maxBytes)
    .toString('utf8')
    .replace(/\uFFFD$/, '');
}
