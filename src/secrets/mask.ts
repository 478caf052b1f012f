/**
 * Granted values shorter than this are not masked: one to three characters occur in ordinary text
 * by chance, masking them would make every log unreadable, and they protect nothing (docs/security.md).
 */
export const minMaskedChars = 4;

interface Candidate {
  value: string;
  marker: string;
  /** Where the value next occurs at or after the cursor; -1 once it occurs no more. */
  next: number;
}

/**
 * Replaces occurrences of granted secret values in `text` by `[secret:NAME]` in one pass over the
 * original text, and writes at most `maxChars` characters. At each position the longest value that
 * starts there is masked; markers already written are never searched again (a value cannot match a
 * name another marker wrote), and the pass stops at the cap, so the work is bounded by the text
 * received, not by what masking could make of it.
 */
export function maskSecrets(
  text: string,
  secrets: readonly { name: string; value: string }[],
  maxChars = Number.POSITIVE_INFINITY,
): string {
  const candidates: Candidate[] = secrets
    .filter((secret) => secret.value.length >= minMaskedChars)
    .sort((a, b) => b.value.length - a.value.length)
    .map(({ name, value }) => ({ value, marker: `[secret:${name}]`, next: text.indexOf(value) }));
  let masked = '';
  let cursor = 0;
  while (masked.length < maxChars) {
    const found = nextMatch(candidates, text, cursor);
    const plainEnd = Math.min(found ? found.next : text.length, cursor + maxChars - masked.length);
    masked += text.slice(cursor, plainEnd);
    if (!found || plainEnd < found.next) break;
    masked += found.marker;
    cursor = found.next + found.value.length;
  }
  return masked.length > maxChars ? masked.slice(0, maxChars) : masked;
}

/** The earliest occurrence at or after `cursor`; the longest value wins a tie (candidates are sorted). */
function nextMatch(candidates: Candidate[], text: string, cursor: number): Candidate | undefined {
  let found: Candidate | undefined;
  for (const candidate of candidates) {
    // An occurrence overlapped by the last masked value is searched for again past it.
    if (candidate.next >= 0 && candidate.next < cursor) candidate.next = text.indexOf(candidate.value, cursor);
    if (candidate.next >= 0 && (!found || candidate.next < found.next)) found = candidate;
  }
  return found;
}
