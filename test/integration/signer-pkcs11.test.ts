import { createHash, ECDH } from 'node:crypto';
import { wallet } from '@cityofzion/neon-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPkcs11Key } from '../../src/signers/backends/pkcs11.ts';
import { openRemoteKey, openSigningKey } from '../../src/signers/open-signing-key.ts';
import { probeRemoteKey } from '../../src/signers/probe-key.ts';
import type { Signer } from '../../src/signers/signer.entity.ts';
import { SignerKeyRefusedError, SignerUnavailableError } from '../../src/signers/signing-key.ts';
import { testMasters } from '../support/keys.ts';
import { softHsmModule, startSoftHsm, type SoftHsm } from '../support/softhsm.ts';

const pin = '482913';
const module = { path: softHsmModule, pin };
const halfOrder = 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551n >> 1n;

let hsm: SoftHsm;

beforeAll(async () => {
  hsm = await startSoftHsm();
  // SoftHSM lists the tokens it finds when the module initialises: every token is made first.
  for (const token of ['neoflow', 'locked', 'removable', 'offline']) await hsm.initToken(token, pin);
  await hsm.generateKey('neoflow', pin, 'operator', 'P-256');
  await hsm.generateKey('neoflow', pin, 'bitcoin-style', 'secp256k1');
  await hsm.generateKey('neoflow', pin, 'rotated', 'P-256');
  await hsm.generateKey('locked', pin, 'operator', 'P-256');
  await hsm.generateKey('removable', pin, 'operator', 'P-256');
  await hsm.generateKey('offline', pin, 'operator', 'P-256');
});

afterAll(async () => {
  await hsm?.stop();
});

/** The compressed key of the token's own CKA_EC_POINT, by Node's OpenSSL rather than the backend's code. */
async function tokensPublicKey(token: string, keyLabel: string): Promise<string> {
  const { ecPoint } = await hsm.inspectKey(token, pin, keyLabel);
  expect(ecPoint.slice(0, 4)).toBe('0441');
  return ECDH.convertKey(ecPoint.slice(4), 'prime256v1', 'hex', 'hex', 'compressed') as string;
}

async function refusal(ref: Parameters<typeof openPkcs11Key>[0]): Promise<SignerKeyRefusedError> {
  const error: unknown = await openPkcs11Key(ref, module).catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(SignerKeyRefusedError);
  return error as SignerKeyRefusedError;
}

describe('a PKCS#11 key generated inside SoftHSM2 as a Neo signer', () => {
  it("becomes a signing key whose public key is the token's, in Neo's compressed form", async () => {
    const key = await openPkcs11Key({ tokenLabel: 'neoflow', keyLabel: 'operator' }, module);
    expect(key.publicKey).toBe(await tokensPublicKey('neoflow', 'operator'));
    expect(wallet.isPublicKey(key.publicKey, true)).toBe(true);
  });

  it('signs digests, concurrent ones included, with low-s signatures neon-js verifies against that key', async () => {
    const key = await openPkcs11Key({ tokenLabel: 'neoflow', keyLabel: 'operator' }, module);
    const messages = Array.from({ length: 16 }, (_, index) =>
      Buffer.from(`neoflow transaction ${index}`).toString('hex'),
    );
    const signatures = await Promise.all(
      messages.map((message) => key.signDigest(createHash('sha256').update(Buffer.from(message, 'hex')).digest())),
    );
    for (const [index, signature] of signatures.entries()) {
      const hex = Buffer.from(signature).toString('hex');
      expect(hex).toHaveLength(128);
      expect(BigInt(`0x${hex.slice(64)}`) <= halfOrder).toBe(true);
      expect(wallet.verify(messages[index]!, hex, key.publicKey)).toBe(true);
    }
  });

  it("opens the same key by its slot's label", async () => {
    const { slotDescription } = await hsm.inspectKey('neoflow', pin, 'operator');
    const key = await openPkcs11Key({ slotLabel: slotDescription, keyLabel: 'operator' }, module);
    expect(key.publicKey).toBe(await tokensPublicKey('neoflow', 'operator'));
  });

  it('keeps the private key inside the token: sensitive, not extractable, its value never read', async () => {
    const view = await hsm.inspectKey('neoflow', pin, 'operator');
    expect(view).toMatchObject({ sensitive: true, extractable: false, valueRead: 'CKR_ATTRIBUTE_SENSITIVE' });
  });

  it('refuses a key of another curve, an unknown key label and an unknown token or slot, naming the field', async () => {
    const otherCurve = await refusal({ tokenLabel: 'neoflow', keyLabel: 'bitcoin-style' });
    expect(otherCurve.field).toBe('keyLabel');
    expect(otherCurve.message).toMatch(/P-256/);
    expect((await refusal({ tokenLabel: 'neoflow', keyLabel: 'no-such-key' })).field).toBe('keyLabel');
    expect((await refusal({ tokenLabel: 'no-such-token', keyLabel: 'operator' })).field).toBe('tokenLabel');
    expect((await refusal({ slotLabel: 'no-such-slot', keyLabel: 'operator' })).field).toBe('slotLabel');
  });

  it('answers a wrong PIN as unavailable, without the PIN in the message, and does not try it again', async () => {
    const wrongPin = '000000';
    const ref = { tokenLabel: 'locked', keyLabel: 'operator' };
    for (const attempt of ['first', 'second']) {
      const error: unknown = await openPkcs11Key(ref, { ...module, pin: wrongPin }).catch((caught: unknown) => caught);
      expect(error, attempt).toBeInstanceOf(SignerUnavailableError);
      expect((error as Error).message, attempt).not.toContain(wrongPin);
      expect((error as Error).message, attempt).toMatch(attempt === 'first' ? /CKR_PIN_INCORRECT/ : /not tried again/);
    }
    const key = await openPkcs11Key(ref, module);
    expect(key.publicKey).toBe(await tokensPublicKey('locked', 'operator'));
  });

  it('answers a module that cannot be loaded as unavailable', async () => {
    const error = await openPkcs11Key(
      { tokenLabel: 'neoflow', keyLabel: 'operator' },
      { path: '/nonexistent/libpkcs11.so', pin },
    ).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SignerUnavailableError);
    expect((error as Error).message).not.toContain(pin);
  });

  it("never signs with another key put under the opened key's label: refused once the key is found again", async () => {
    const key = await openPkcs11Key({ tokenLabel: 'neoflow', keyLabel: 'rotated' }, module);
    await hsm.destroyKey('neoflow', pin, 'rotated');
    await hsm.generateKey('neoflow', pin, 'rotated', 'P-256');
    const attempts: unknown[] = [];
    for (let attempt = 0; attempt < 2; attempt++)
      attempts.push(await key.signDigest(Buffer.alloc(32, 2)).catch((error: unknown) => error));
    // The handle opened is stale (nothing signed, the session renewed); found again, the key is another.
    expect(attempts[0]).toBeInstanceOf(SignerUnavailableError);
    expect(attempts[1]).toBeInstanceOf(SignerKeyRefusedError);
    expect((attempts[1] as SignerKeyRefusedError).field).toBe('keyLabel');
  });

  it('answers a token removed after the key was opened as unavailable at sign time', async () => {
    const key = await openPkcs11Key({ tokenLabel: 'removable', keyLabel: 'operator' }, module);
    await key.signDigest(Buffer.alloc(32, 1));
    await hsm.deleteToken('removable');
    for (let attempt = 0; attempt < 2; attempt++)
      await expect(key.signDigest(Buffer.alloc(32, 1))).rejects.toBeInstanceOf(SignerUnavailableError);
  });

  it('answers a token absent at send as unavailable for a signer accepted at create, a refusal naming tokenLabel at create', async () => {
    const backend = { tokenLabel: 'offline', keyLabel: 'operator' };
    const probe = () => probeRemoteKey({ type: 'pkcs11', backend }, (input) => openRemoteKey(input, module));
    expect(await probe()).toMatchObject({ outcome: 'key' });
    // As a worker reads the row of a signer accepted at create: a fresh id, nothing opened yet.
    const accepted = (id: string, ref: typeof backend) => ({ id, type: 'pkcs11', backend: ref }) as unknown as Signer;
    const worker = { masterKeys: testMasters, pkcs11: module };
    await hsm.deleteToken('offline');

    expect(await probe()).toMatchObject({ outcome: 'refused', field: 'tokenLabel' });
    const atSend = await openSigningKey(accepted('sgn_offline', backend), worker).catch((error: unknown) => error);
    expect(atSend).toBeInstanceOf(SignerUnavailableError);
    expect((atSend as Error).message).toMatch(/offline/);
    // A key deleted from a token that is there is gone for good: still refused at send.
    const deleted = accepted('sgn_deleted', { tokenLabel: 'neoflow', keyLabel: 'no-such-key' });
    const gone = await openSigningKey(deleted, worker).catch((error: unknown) => error);
    expect(gone).toBeInstanceOf(SignerKeyRefusedError);
    expect((gone as SignerKeyRefusedError).field).toBe('keyLabel');
  });
});
