import pkcs11js from 'pkcs11js';
import { compressedPoint, lowS, MalformedKeyMaterialError } from '../ecdsa.ts';
import { SignerKeyRefusedError, SignerUnavailableError, type SigningKey } from '../signing-key.ts';
import { errorName, loadModule, tokenOf, type Cryptoki, type Handle, type Token } from './pkcs11-module.ts';

/**
 * A signer whose key lives in a PKCS#11 token (an HSM, SoftHSM2 in the tests): the private key
 * never leaves it; the token answers the public point and raw `r‖s` signatures (CKM_ECDSA on
 * the digest), turned here into Neo's shapes. The binding, the module and its sessions are in
 * pkcs11-module.ts.
 */

interface Pkcs11KeyRef {
  tokenLabel?: string;
  slotLabel?: string;
  keyLabel: string;
}

/** Where the worker's module is and the PIN of its user: from config, never from a request. */
interface Pkcs11Module {
  path: string;
  pin: string;
}

/** CKA_EC_PARAMS of P-256: the DER OBJECT IDENTIFIER 1.2.840.10045.3.1.7 (prime256v1). */
const p256Params = Buffer.from('06082a8648ce3d030107', 'hex');

/** Return values that mean the key itself may not sign this way, whenever it is asked. */
const refusals = new Set(['CKR_KEY_FUNCTION_NOT_PERMITTED', 'CKR_KEY_TYPE_INCONSISTENT', 'CKR_MECHANISM_INVALID']);

/**
 * No slot holds the token (or slot) a ref names: a refusal when a signer is created, but for one
 * accepted earlier an HSM offline or a token its module does not list (open-signing-key.ts).
 */
export class Pkcs11TokenAbsentError extends SignerKeyRefusedError {}

/** The private key found, and the session generation its handle belongs to. */
interface Located {
  handle: Handle;
  publicKey: string;
  generation: number;
}

/**
 * The P-256 private key labelled `ref.keyLabel` in the token `ref` names, as a signing key. Throws
 * SignerKeyRefusedError naming the field at fault (no such token or slot, as the subclass
 * Pkcs11TokenAbsentError; no such key, another curve, a key that may not sign) or
 * SignerUnavailableError (the module cannot be loaded, the PIN is refused, the token gone once
 * opened); the PIN is in no message. A key found through a session that has since been replaced
 * is found again at its next signature, and must be the same key.
 */
export async function openPkcs11Key(ref: Pkcs11KeyRef, module: Pkcs11Module): Promise<SigningKey> {
  const cryptoki = await loadModule(module.path);
  const token = findToken(cryptoki, ref);
  let located = await onToken(token, 'could not be read', () => locate(cryptoki, token, ref, module.pin));
  return {
    publicKey: located.publicKey,
    async signDigest(digest) {
      if (digest.length !== 32) throw new RangeError(`a digest of ${digest.length} bytes, not 32`);
      return onToken(token, 'could not sign', async () => {
        const session = token.sessionFor(module.pin);
        if (located.generation !== token.generation) {
          // A new session: find the key again, and refuse another key under the same label.
          const again = locate(cryptoki, token, ref, module.pin);
          if (again.publicKey !== located.publicKey)
            throw new SignerKeyRefusedError(`the key labelled ${ref.keyLabel} is not the one opened`, 'keyLabel');
          located = again;
        }
        cryptoki.pkcs11.C_SignInit(session, { mechanism: pkcs11js.CKM_ECDSA }, located.handle);
        return lowS(await cryptoki.pkcs11.C_SignAsync(session, Buffer.from(digest), Buffer.alloc(64)));
      });
    },
  };
}

/**
 * Runs `work` on the token's session once every earlier use of it has ended (a session runs one
 * operation at a time, and C_SignAsync yields to the event loop mid-operation), turning what the
 * binding throws into the port's errors: a refusal of the key, or "not now" (the session is
 * dropped, so a later attempt starts afresh).
 */
function onToken<T>(token: Token, failing: string, work: () => Promise<T> | T): Promise<T> {
  return token.exclusive(async () => {
    try {
      return await work();
    } catch (error) {
      if (error instanceof SignerKeyRefusedError || error instanceof SignerUnavailableError) throw error;
      if (error instanceof MalformedKeyMaterialError)
        throw new SignerKeyRefusedError(`the token's key answered ${error.message}`, 'keyLabel');
      const name = errorName(error);
      if (refusals.has(name)) throw new SignerKeyRefusedError(`the key may not sign with ECDSA: ${name}`, 'keyLabel');
      token.drop();
      throw new SignerUnavailableError(`${token.description} ${failing}: ${name}`);
    }
  });
}

/** The one token the ref names, by its label, its slot's description, or both. */
function findToken(cryptoki: Cryptoki, ref: Pkcs11KeyRef): Token {
  const { tokenLabel, slotLabel } = ref;
  if (tokenLabel === undefined && slotLabel === undefined)
    throw new SignerKeyRefusedError(
      'a PKCS#11 signer names its token (tokenLabel) or its slot (slotLabel)',
      'tokenLabel',
    );
  let slots: { slot: Handle; token: string; slotLabel: string }[];
  try {
    slots = cryptoki.pkcs11.C_GetSlotList(true).flatMap((slot) => {
      try {
        const token = cryptoki.pkcs11.C_GetTokenInfo(slot).label.trimEnd();
        return [{ slot, token, slotLabel: cryptoki.pkcs11.C_GetSlotInfo(slot).slotDescription.trimEnd() }];
      } catch {
        // A token removed between the list and its reading is not there.
        return [];
      }
    });
  } catch (error) {
    throw new SignerUnavailableError(`the PKCS#11 slots could not be listed: ${errorName(error)}`);
  }
  const found = slots.filter(
    (slot) =>
      (tokenLabel === undefined || slot.token === tokenLabel) &&
      (slotLabel === undefined || slot.slotLabel === slotLabel),
  );
  const field = tokenLabel !== undefined ? 'tokenLabel' : 'slotLabel';
  const named = tokenLabel !== undefined ? `a token labelled ${tokenLabel}` : `a token in a slot labelled ${slotLabel}`;
  if (found.length === 0) throw new Pkcs11TokenAbsentError(`no slot holds ${named}`, field);
  if (found.length > 1) throw new SignerKeyRefusedError(`${found.length} slots hold ${named}`, field);
  const description = tokenLabel !== undefined ? `the PKCS#11 token ${tokenLabel}` : `the PKCS#11 slot ${slotLabel}`;
  return tokenOf(cryptoki, found[0]!.slot, description);
}

/**
 * The private key labelled `keyLabel`, checked to be a P-256 key that may sign, and its public
 * point (from the public key object beside it: a token never answers a private key's point).
 */
function locate(cryptoki: Cryptoki, token: Token, ref: Pkcs11KeyRef, pin: string): Located {
  const { pkcs11 } = cryptoki;
  const session = token.sessionFor(pin);
  const refuse = (problem: string) =>
    new SignerKeyRefusedError(`the key labelled ${ref.keyLabel} ${problem}`, 'keyLabel');
  const privates = find(pkcs11, session, pkcs11js.CKO_PRIVATE_KEY, [{ type: pkcs11js.CKA_LABEL, value: ref.keyLabel }]);
  if (privates.length === 0) throw refuse(`is not a private key in ${token.description}`);
  if (privates.length > 1) throw refuse('names more than one private key');
  const handle = privates[0]!;
  const [keyType] = attributes(pkcs11, session, handle, [pkcs11js.CKA_KEY_TYPE]);
  if (keyType!.readUIntLE(0, Math.min(keyType!.length, 6)) !== pkcs11js.CKK_EC) throw refuse('is not an EC key');
  const [params, sign, id] = attributes(pkcs11, session, handle, [
    pkcs11js.CKA_EC_PARAMS,
    pkcs11js.CKA_SIGN,
    pkcs11js.CKA_ID,
  ]);
  if (!params!.equals(p256Params)) throw refuse('is not on the curve P-256 (secp256r1) Neo signs with');
  if (sign![0] !== 1) throw refuse('may not sign (CKA_SIGN is false)');
  // A key pair shares CKA_ID by convention; without one, its public half shares the label.
  const pairedBy =
    id!.length > 0 ? { type: pkcs11js.CKA_ID, value: id! } : { type: pkcs11js.CKA_LABEL, value: ref.keyLabel };
  const publics = find(pkcs11, session, pkcs11js.CKO_PUBLIC_KEY, [pairedBy]);
  if (publics.length !== 1) throw refuse(`has ${publics.length === 0 ? 'no' : 'more than one'} public key beside it`);
  const [point, publicParams] = attributes(pkcs11, session, publics[0]!, [
    pkcs11js.CKA_EC_POINT,
    pkcs11js.CKA_EC_PARAMS,
  ]);
  if (!publicParams!.equals(p256Params)) throw refuse('has a public key of another curve beside it');
  return { handle, publicKey: compressedPoint(unwrapPoint(point!)), generation: token.generation };
}

/** Up to two objects of `objectClass` matching `template`: two are enough to know a label is ambiguous. */
function find(pkcs11: pkcs11js.PKCS11, session: Handle, objectClass: number, template: pkcs11js.Template): Handle[] {
  pkcs11.C_FindObjectsInit(session, [{ type: pkcs11js.CKA_CLASS, value: objectClass }, ...template]);
  try {
    return pkcs11.C_FindObjects(session, 2);
  } finally {
    pkcs11.C_FindObjectsFinal(session);
  }
}

/** The values of the attributes `types` of `object`, in their order. */
function attributes(pkcs11: pkcs11js.PKCS11, session: Handle, object: Handle, types: number[]): Buffer[] {
  return pkcs11
    .C_GetAttributeValue(
      session,
      object,
      types.map((type) => ({ type })),
    )
    .map((attribute) => attribute.value);
}

/**
 * CKA_EC_POINT is a DER OCTET STRING around `04‖x‖y` (PKCS#11 2.20 on); a few older modules
 * answer the bare point, which is 65 bytes where the wrapped one is 67.
 */
function unwrapPoint(ecPoint: Buffer): Buffer {
  return ecPoint.length === 67 && ecPoint[0] === 0x04 && ecPoint[1] === 0x41 ? ecPoint.subarray(2) : ecPoint;
}
