import { createHash } from 'node:crypto';
import { CONST } from '@cityofzion/neon-js';

/**
 * An N3 address decoded as neon-js `wallet.isAddress(value, version)` then
 * `getScriptHashFromAddress` do, in a few microseconds instead of a hundred or more (they hash by
 * hex strings in JavaScript): the block follower decodes every address its watchers' filters name
 * (automations/blocks/filter-values.ts).
 *
 * An address is the base58 text of 25 bytes: the version, the script hash (little-endian), and the
 * first 4 bytes of the double SHA-256 of the 21 before. neon-js also accepts only the text that
 * encoding those bytes gives back: no leading `1` (it would stand for a leading zero byte, and the
 * version is not zero), no more and no fewer bytes.
 */
const alphabet = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const digits = new Map([...alphabet].map((char, digit) => [char.charCodeAt(0), digit]));
const addressBytes = 25;

/** The script hash of an N3 address as big-endian hex without `0x`; null if `value` is none. */
export function addressScriptHash(value: string): string | null {
  if (value.length === 0 || value.startsWith('1')) return null;
  const bytes = new Uint8Array(addressBytes);
  for (let at = 0; at < value.length; at++) {
    let carry = digits.get(value.charCodeAt(at));
    if (carry === undefined) return null;
    for (let index = addressBytes - 1; index >= 0; index--) {
      carry += bytes[index]! * 58;
      bytes[index] = carry & 0xff;
      carry >>= 8;
    }
    if (carry !== 0) return null;
  }
  if (bytes[0] !== CONST.DEFAULT_ADDRESS_VERSION) return null;
  const once = createHash('sha256').update(bytes.subarray(0, 21)).digest();
  const checksum = createHash('sha256').update(once).digest();
  if (!checksum.subarray(0, 4).equals(bytes.subarray(21))) return null;
  return Buffer.from(bytes.subarray(1, 21)).reverse().toString('hex');
}
