import { createHash } from 'node:crypto';
import { typeStripper, type StripOutcome, type TypeStripper } from './type-stripper.ts';
import type { StrippedCode } from './typescript.ts';

// A process strips each code it runs once while it stays in use, keyed by the SHA-256 of the
// code (the key holds 64 characters whatever the code's size). Bounded by entries and by the
// characters kept, oldest use evicted first; an evicted code is stripped again in a thread.
const cache = new Map<string, StrippedCode>();
const maxCachedEntries = 256;
const maxCachedChars = 32 * 1024 * 1024;
let cachedChars = 0;
/** Codes being stripped: runs of one code that arrive together share its stripping. */
const stripping = new Map<string, Promise<StripOutcome>>();

const sizeOf = (stripped: StrippedCode) => (stripped.ok ? stripped.code.length : stripped.message.length);

/**
 * The code of a run stripped of its types: from the cache, else by `stripper` in `lane` (the
 * function's), kept when it is an answer about the code itself (stripped, or its syntax error).
 */
export async function stripTypesForRun(
  code: string,
  lane: string,
  stripper: TypeStripper = typeStripper,
): Promise<StripOutcome> {
  const key = createHash('sha256').update(code, 'utf8').digest('hex');
  const cached = cache.get(key);
  if (cached) {
    cache.delete(key);
    cache.set(key, cached);
    return cached;
  }
  const pending = stripping.get(key);
  if (pending) return pending;
  const started = stripper.strip(code, lane).then((outcome) => {
    stripping.delete(key);
    if (!('refused' in outcome)) remember(key, outcome);
    return outcome;
  });
  stripping.set(key, started);
  return started;
}

function remember(key: string, stripped: StrippedCode) {
  cache.set(key, stripped);
  cachedChars += sizeOf(stripped);
  for (const [oldest, kept] of cache) {
    if (cache.size <= maxCachedEntries && cachedChars <= maxCachedChars) break;
    cache.delete(oldest);
    cachedChars -= sizeOf(kept);
  }
}
