import { describe, expect, it } from 'vitest';
import { generateKeyPairSync, sign } from 'node:crypto';
import { wallet } from '@cityofzion/neon-js';
import {
  MalformedKeyMaterialError,
  compressedFromSpki,
  compressedPoint,
  lowS,
  rsFromDer,
} from '../../src/signers/ecdsa.ts';

const order = 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551n;
const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');

function keyPair() {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return { privateKey, spki: publicKey.export({ format: 'der', type: 'spki' }) };
}

describe('ecdsa shapes from custody backends', () => {
  it('a DER signature and an SPKI key become what neon-js verifies, for many keys and messages', () => {
    for (let i = 0; i < 50; i++) {
      const { privateKey, spki } = keyPair();
      const message = Buffer.from(`neo message ${i}`).toString('hex');
      const der = sign('sha256', Buffer.from(message, 'hex'), { key: privateKey, dsaEncoding: 'der' });
      const rs = rsFromDer(der);
      expect(rs).toHaveLength(64);
      expect(BigInt(`0x${hex(rs.subarray(32))}`) <= order >> 1n).toBe(true);
      expect(wallet.verify(message, hex(rs), compressedFromSpki(spki))).toBe(true);
    }
  });

  it('a high s is turned into n − s, which still verifies', () => {
    const { privateKey, spki } = keyPair();
    const message = 'abcdef';
    const rs = sign('sha256', Buffer.from(message, 'hex'), { key: privateKey, dsaEncoding: 'ieee-p1363' });
    const s = BigInt(`0x${hex(rs.subarray(32))}`);
    const high = s > order >> 1n ? s : order - s;
    const highRs = Buffer.concat([rs.subarray(0, 32), Buffer.from(high.toString(16).padStart(64, '0'), 'hex')]);
    const normalised = lowS(highRs);
    expect(BigInt(`0x${hex(normalised.subarray(32))}`)).toBe(order - high);
    expect(wallet.verify(message, hex(normalised), compressedFromSpki(spki))).toBe(true);
  });

  it('an uncompressed point compresses to the key neon-js derives from the private key', () => {
    const account = new wallet.Account(wallet.generatePrivateKey());
    const uncompressed = Buffer.from(wallet.getPublicKeyUnencoded(account.publicKey), 'hex');
    expect(compressedPoint(uncompressed)).toBe(account.publicKey);
  });

  it('malformed signatures and keys are refused with a typed error, never read past their bounds', () => {
    const refusals = [
      () => rsFromDer(Buffer.alloc(0)),
      () => rsFromDer(Buffer.from('3006020101020101ff', 'hex')),
      () => rsFromDer(Buffer.from('30060201000201010000', 'hex')),
      () => rsFromDer(Buffer.from('3008020101020501', 'hex')),
      () => lowS(Buffer.alloc(64)),
      () => lowS(Buffer.alloc(63, 1)),
      () => compressedPoint(Buffer.alloc(33, 2)),
      () => compressedFromSpki(Buffer.from('not a key')),
      () =>
        compressedFromSpki(
          generateKeyPairSync('ec', { namedCurve: 'secp256k1' }).publicKey.export({ format: 'der', type: 'spki' }),
        ),
      () => compressedFromSpki(generateKeyPairSync('ed25519').publicKey.export({ format: 'der', type: 'spki' })),
    ];
    for (const refusal of refusals) expect(refusal).toThrow(MalformedKeyMaterialError);
  });
});
