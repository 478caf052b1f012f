import { wallet } from '@cityofzion/neon-js';
import { describe, expect, it } from 'vitest';
import { createSignerBody } from '../../src/signers/signers.schemas.ts';

describe("an imported signer's private key in a create body", () => {
  it('is refused past 128 characters before it is decoded, and taken as a WIF or as hex', () => {
    const long = createSignerBody.safeParse({ name: 'cold', type: 'import', privateKey: '5'.repeat(1 << 20) });
    expect(long.success).toBe(false);
    expect(long.error?.issues).toHaveLength(1);
    expect(long.error?.issues[0]?.path).toEqual(['privateKey']);
    const key = new wallet.Account(wallet.generatePrivateKey());
    for (const privateKey of [key.WIF, key.privateKey, `0x${key.privateKey}`])
      expect(createSignerBody.safeParse({ name: 'cold', type: 'import', privateKey }).success).toBe(true);
  });
});
