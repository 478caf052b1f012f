import { createHash } from 'node:crypto';
import { tx, wallet } from '@cityofzion/neon-js';
import { describe, expect, it } from 'vitest';
import { keySender, sign, SignerMismatchError } from '../../src/chain/transaction.ts';
import { seal } from '../../src/crypto/envelope.ts';
import { sealContexts } from '../../src/crypto/seal-contexts.ts';
import { localSigningKey } from '../../src/signers/local-key.ts';
import { forgetSigningKey, openSigningKey } from '../../src/signers/open-signing-key.ts';
import { signatureVerifies } from '../../src/signers/signature-check.ts';
import type { Signer } from '../../src/signers/signer.entity.ts';
import { SignerKeyRefusedError, SignerUnavailableError, type SigningKey } from '../../src/signers/signing-key.ts';
import { MalformedKeyMaterialError } from '../../src/signers/ecdsa.ts';
import { signerAttempts, signingEnd } from '../../src/automations/actions/signing-steps.ts';
import { probeRemoteKey } from '../../src/signers/probe-key.ts';
import type { ProbeSignerInput } from '../../src/shared/workflow-signatures.ts';
import { testMasters } from '../support/keys.ts';

const order = 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551n;
const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');
const digestOf = (text: string) => createHash('sha256').update(text).digest();
const magic = 860833102;

/** An unsigned GAS-less transaction of `sender`'s account: what `sign` is given once priced. */
function unsigned(verificationScript: string) {
  const account = wallet.getScriptHashFromVerificationScript(verificationScript);
  const transaction = new tx.Transaction({
    signers: [new tx.Signer({ account, scopes: tx.WitnessScope.CalledByEntry })],
    script: '11',
    validUntilBlock: 100,
    witnesses: [{ invocationScript: '', verificationScript }],
  });
  return { transaction, magic };
}

describe('a key held in the process, behind the signing port', () => {
  it("signs a digest as r‖s with a low s that neon-js verifies for the key's public key", async () => {
    for (let i = 0; i < 20; i++) {
      const account = new wallet.Account(wallet.generatePrivateKey());
      const key = localSigningKey(account.WIF);
      const message = Buffer.from(`neo message ${i}`).toString('hex');
      const signature = await key.signDigest(createHash('sha256').update(Buffer.from(message, 'hex')).digest());
      expect(signature).toHaveLength(64);
      expect(BigInt(`0x${hex(signature.subarray(32))}`) <= order >> 1n).toBe(true);
      expect(key.publicKey).toBe(account.publicKey);
      expect(wallet.verify(message, hex(signature), account.publicKey)).toBe(true);
    }
  });

  it('takes a WIF, 64 hex digits and 0x-prefixed hex alike, and refuses a digest of another length', async () => {
    const account = new wallet.Account(wallet.generatePrivateKey());
    const keys = [account.WIF, account.privateKey, `0x${account.privateKey}`].map(localSigningKey);
    expect(keys.map((key) => key.publicKey)).toEqual(Array(3).fill(account.publicKey));
    await expect(keys[0]!.signDigest(Buffer.alloc(31))).rejects.toThrow(RangeError);
  });
});

describe('signing a transaction through the port', () => {
  it('attaches a witness whose signature verifies over SHA-256(magic ‖ hash) for the sender', async () => {
    const account = new wallet.Account(wallet.generatePrivateKey());
    const sender = keySender(localSigningKey(account.privateKey));
    const priced = unsigned(sender.verificationScript);
    const signed = await sign(priced, sender);
    const [witness] = signed.witnesses;
    // The invocation script pushes the 64-byte signature: PUSHDATA1 0x40, then the signature.
    const signature = witness!.invocationScript.toBigEndian().slice(4);
    expect(wallet.verify(signed.getMessageForSigning(magic), signature, account.publicKey)).toBe(true);
    expect(witness!.verificationScript.toBigEndian()).toBe(sender.verificationScript);
  });

  it('refuses with SignerMismatch, attaching nothing, when the key signs as another key than the recorded one', async () => {
    const recorded = new wallet.Account(wallet.generatePrivateKey());
    const other = localSigningKey(wallet.generatePrivateKey());
    const sender = keySender(other, recorded.publicKey);
    const priced = unsigned(sender.verificationScript);
    await expect(sign(priced, sender)).rejects.toThrow(SignerMismatchError);
    expect(priced.transaction.witnesses[0]!.invocationScript.toBigEndian()).toBe('');
  });

  it('refuses with SignerMismatch a key that answers bytes that are no signature', async () => {
    const account = new wallet.Account(wallet.generatePrivateKey());
    const garbled: SigningKey = { publicKey: account.publicKey, signDigest: async () => new Uint8Array(64).fill(7) };
    const sender = keySender(garbled);
    await expect(sign(unsigned(sender.verificationScript), sender)).rejects.toThrow(SignerMismatchError);
  });
});

describe('checking a signature against a public key', () => {
  it('accepts the key’s own signature and refuses another key’s, a changed digest and a wrong length', async () => {
    const key = localSigningKey(wallet.generatePrivateKey());
    const otherKey = new wallet.Account(wallet.generatePrivateKey()).publicKey;
    const digest = digestOf('a');
    const signature = await key.signDigest(digest);
    expect(signatureVerifies(digest, signature, key.publicKey)).toBe(true);
    expect(signatureVerifies(digest, signature, otherKey)).toBe(false);
    expect(signatureVerifies(digestOf('b'), signature, key.publicKey)).toBe(false);
    expect(signatureVerifies(digest, signature.subarray(1), key.publicKey)).toBe(false);
  });
});

/** A generated signer's row as the worker reads it: its key sealed to its account. */
function sealedSigner(id: string, privateKey: string, accountId = 'acct_a'): Signer {
  const sealed = seal(privateKey, sealContexts.signer(accountId), testMasters);
  return { id, type: 'generated', account: { id: accountId }, ...sealed } as unknown as Signer;
}

describe('opening a signer’s key', () => {
  it('opens a sealed key to the key sealed, once per signer id', async () => {
    const account = new wallet.Account(wallet.generatePrivateKey());
    const signer = sealedSigner('sgn_open_once', account.WIF);
    const first = openSigningKey(signer, { masterKeys: testMasters });
    expect((await first).publicKey).toBe(account.publicKey);
    // Its seal gone, the signer still signs with what was opened: the opened key is kept.
    const resealed = { ...signer, ciphertext: Buffer.alloc(0) } as Signer;
    expect(openSigningKey(resealed, { masterKeys: testMasters })).toBe(first);
    forgetSigningKey(signer.id);
    await expect(openSigningKey(resealed, { masterKeys: testMasters })).rejects.toThrow();
  });

  it('keeps no failed opening: a key sealed to another account fails, and opens once its row is right', async () => {
    const privateKey = wallet.generatePrivateKey();
    const moved = { ...sealedSigner('sgn_moved', privateKey, 'acct_a'), account: { id: 'acct_b' } } as Signer;
    await expect(openSigningKey(moved, { masterKeys: testMasters })).rejects.toThrow();
    const right = sealedSigner('sgn_moved', privateKey, 'acct_b');
    expect((await openSigningKey(right, { masterKeys: testMasters })).publicKey).toBe(
      new wallet.Account(privateKey).publicKey,
    );
    forgetSigningKey('sgn_moved');
  });
});

describe('how a run ends when its signer cannot sign', () => {
  const unavailable = new SignerUnavailableError('the KMS at 10.0.0.5 did not answer');

  it('retries a backend not reachable now until the last attempt, then ends SignerUnavailable without its words', () => {
    expect(signingEnd(unavailable, false)).toBeNull();
    const end = signingEnd(unavailable, true)!;
    expect(end.name).toBe('SignerUnavailable');
    expect(end.message).toContain(`in ${signerAttempts} attempts`);
    expect(end.message).not.toContain('10.0.0.5');
  });

  it('ends at once a key that can never sign (SignerUnavailable) or signs wrongly (SignerMismatch), and leaves other errors to the retries', () => {
    const refused = signingEnd(
      new SignerKeyRefusedError('denied to arn:aws:iam::123456789012:role/worker', 'keyId'),
      false,
    );
    expect(refused).toMatchObject({ name: 'SignerUnavailable', message: expect.stringContaining('`keyId`') as string });
    expect(refused!.message).not.toContain('arn:aws');
    expect(signingEnd(new SignerMismatchError('wrong'), false)).toEqual({ name: 'SignerMismatch', message: 'wrong' });
    expect(signingEnd(new MalformedKeyMaterialError('a signature of 3 bytes, not 64'), false)).toMatchObject({
      name: 'SignerMismatch',
    });
    expect(signingEnd(new Error('the database went away'), true)).toBeNull();
  });
});

describe("the probe of a new remote signer's key", () => {
  const kms: ProbeSignerInput = { type: 'aws-kms', backend: { keyId: 'alias/neo' } };
  const opening = (key: SigningKey | Error) => async () => {
    if (key instanceof Error) throw key;
    return key;
  };

  it('answers the public key of a key that signs a test digest its public key verifies', async () => {
    const key = localSigningKey(wallet.generatePrivateKey());
    expect(await probeRemoteKey(kms, opening(key))).toEqual({ outcome: 'key', publicKey: key.publicKey });
  });

  it('refuses, naming the key field, a key whose signature its public key does not verify', async () => {
    const signer = localSigningKey(wallet.generatePrivateKey());
    const claimed = new wallet.Account(wallet.generatePrivateKey()).publicKey;
    const liar: SigningKey = { publicKey: claimed, signDigest: (digest) => signer.signDigest(digest) };
    expect(await probeRemoteKey(kms, opening(liar))).toMatchObject({ outcome: 'refused', field: 'keyId' });
    const pkcs11: ProbeSignerInput = { type: 'pkcs11', backend: { keyLabel: 'neo' } };
    expect(await probeRemoteKey(pkcs11, opening(liar))).toMatchObject({ outcome: 'refused', field: 'keyLabel' });
  });

  it("answers the backend's refusal with its field, and unavailable when it is not reachable now", async () => {
    const refused = new SignerKeyRefusedError('the key is not ECC_NIST_P256', 'keyId');
    expect(await probeRemoteKey(kms, opening(refused))).toEqual({
      outcome: 'refused',
      field: 'keyId',
      message: 'the key is not ECC_NIST_P256',
    });
    const down = new SignerUnavailableError('KMS not reachable');
    expect(await probeRemoteKey(kms, opening(down))).toEqual({ outcome: 'unavailable', message: 'KMS not reachable' });
  });
});
