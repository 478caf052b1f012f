import { randomBytes } from 'node:crypto';
import { CONST, wallet } from '@cityofzion/neon-js';
import { describe, expect, it } from 'vitest';
import { addressScriptHash } from '../../src/chain/address.ts';

/** What neon-js says of a text: the script hash of a valid N3 address, else null. */
const neonReads = (value: string) =>
  wallet.isAddress(value, CONST.DEFAULT_ADDRESS_VERSION) ? wallet.getScriptHashFromAddress(value) : null;

describe('an N3 address decoded without neon-js', () => {
  it('reads what neon-js reads: valid addresses, other versions, and every text one character away', () => {
    const texts: string[] = ['', '1', 'NXV7ZhHiyM1aHXwpVsRZC6BwNFP2jghXAq', `N${'z'.repeat(33)}`];
    for (let i = 0; i < 40; i++) {
      const hash = randomBytes(20).toString('hex');
      const address = wallet.getAddressFromScriptHash(hash);
      const at = i % address.length;
      const other = 'x0OIl1é+'[i % 8]!;
      texts.push(
        address,
        wallet.getAddressFromScriptHash(hash, 23),
        `1${address}`,
        `${address}1`,
        address.slice(0, at) + other + address.slice(at + 1),
        address.slice(0, at) + address.slice(at + 1),
      );
    }
    for (const text of texts) expect(addressScriptHash(text), text).toBe(neonReads(text));
    expect(texts.filter((text) => neonReads(text) !== null).length).toBeGreaterThanOrEqual(40);
  });
});
