import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { recordRefusedKey, type Origin } from '../audit/audit-event.sql.ts';
import { hashKey, keyHint, looksLikeKey } from './key-material.ts';

/**
 * Buckets of made-up keys' prefixes: a flood of unknown keys writes at most this many events a
 * minute, however many keys it tries (audit-event.sql.ts).
 */
const unknownBuckets = 60;

/**
 * Records a key the admission refused: by its prefix (`nf_abcd…`), never the key; a value that
 * is not shaped like a key is recorded as `malformed`, none of it kept.
 */
export function recordRefused(em: EntityManager, presented: string, origin: Origin): Promise<void> {
  if (!looksLikeKey(presented)) return recordRefusedKey(em, { hash: null, prefix: null, bucket: 0 }, origin);
  const prefix = keyHint(presented);
  const bucket = createHash('sha256').update(prefix).digest().readUInt32BE(0) % unknownBuckets;
  return recordRefusedKey(em, { hash: hashKey(presented), prefix, bucket }, origin);
}
