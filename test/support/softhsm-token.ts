/**
 * What a test does to a SoftHSM2 token besides signing, in a process of its own: the test's
 * process loads the same module for the backend under test, and PKCS#11 allows one C_Initialize
 * (and one login state per token) per process. Run by softhsm.ts:
 *   node softhsm-token.ts generate <token> <key label> <P-256|secp256k1>
 *   node softhsm-token.ts inspect <token> <key label>
 *   node softhsm-token.ts destroy <token> <key label>
 * with SOFTHSM2_CONF, and the user PIN in SOFTHSM_TEST_PIN; answers JSON on stdout.
 */
import pkcs11js from 'pkcs11js';

const curves: Record<string, string> = {
  'P-256': '06082a8648ce3d030107',
  secp256k1: '06052b8104000a',
};

const [command, tokenLabel, keyLabel, curve] = process.argv.slice(2);
const pkcs11 = new pkcs11js.PKCS11();
pkcs11.load(process.env.SOFTHSM_MODULE!);
pkcs11.C_Initialize();
try {
  const slot = pkcs11.C_GetSlotList(true).find((slot) => pkcs11.C_GetTokenInfo(slot).label.trimEnd() === tokenLabel);
  if (!slot) throw new Error(`no token ${tokenLabel}`);
  const session = pkcs11.C_OpenSession(slot, pkcs11js.CKF_SERIAL_SESSION | pkcs11js.CKF_RW_SESSION);
  pkcs11.C_Login(session, pkcs11js.CKU_USER, process.env.SOFTHSM_TEST_PIN);
  const commands = { generate, inspect, destroy } as Record<string, (session: Buffer, slot: Buffer) => object>;
  const answer = commands[command!]!(session, slot);
  process.stdout.write(JSON.stringify(answer));
} finally {
  pkcs11.C_Finalize();
}

/** A key pair made inside the token: its private half sensitive and never extractable. */
function generate(session: Buffer) {
  const id = Buffer.from(keyLabel!);
  const common = [
    { type: pkcs11js.CKA_TOKEN, value: true },
    { type: pkcs11js.CKA_LABEL, value: keyLabel! },
    { type: pkcs11js.CKA_ID, value: id },
  ];
  pkcs11.C_GenerateKeyPair(
    session,
    { mechanism: pkcs11js.CKM_EC_KEY_PAIR_GEN },
    [
      ...common,
      { type: pkcs11js.CKA_EC_PARAMS, value: Buffer.from(curves[curve!]!, 'hex') },
      { type: pkcs11js.CKA_VERIFY, value: true },
    ],
    [
      ...common,
      { type: pkcs11js.CKA_PRIVATE, value: true },
      { type: pkcs11js.CKA_SENSITIVE, value: true },
      { type: pkcs11js.CKA_EXTRACTABLE, value: false },
      { type: pkcs11js.CKA_SIGN, value: true },
    ],
  );
  return { generated: keyLabel };
}

/** Both halves of the key pair, deleted from the token. */
function destroy(session: Buffer) {
  for (const objectClass of [pkcs11js.CKO_PRIVATE_KEY, pkcs11js.CKO_PUBLIC_KEY])
    pkcs11.C_DestroyObject(session, one(session, objectClass));
  return { destroyed: keyLabel };
}

function one(session: Buffer, objectClass: number): Buffer {
  pkcs11.C_FindObjectsInit(session, [
    { type: pkcs11js.CKA_CLASS, value: objectClass },
    { type: pkcs11js.CKA_LABEL, value: keyLabel! },
  ]);
  const [found] = pkcs11.C_FindObjects(session, 1);
  pkcs11.C_FindObjectsFinal(session);
  if (!found) throw new Error(`no key ${keyLabel}`);
  return found;
}

/** The public point as the token holds it, the private half's protection, and what reading its value answers. */
function inspect(session: Buffer, slot: Buffer) {
  const publicKey = one(session, pkcs11js.CKO_PUBLIC_KEY);
  const privateKey = one(session, pkcs11js.CKO_PRIVATE_KEY);
  const [point] = pkcs11.C_GetAttributeValue(session, publicKey, [{ type: pkcs11js.CKA_EC_POINT }]);
  const [sensitive, extractable] = pkcs11.C_GetAttributeValue(session, privateKey, [
    { type: pkcs11js.CKA_SENSITIVE },
    { type: pkcs11js.CKA_EXTRACTABLE },
  ]);
  let valueRead: string;
  try {
    const [value] = pkcs11.C_GetAttributeValue(session, privateKey, [{ type: pkcs11js.CKA_VALUE }]);
    valueRead = `read ${value!.value.length} bytes`;
  } catch (error) {
    valueRead = (error as Error).message;
  }
  return {
    ecPoint: point!.value.toString('hex'),
    sensitive: sensitive!.value[0] === 1,
    extractable: extractable!.value[0] === 1,
    valueRead,
    slotDescription: pkcs11.C_GetSlotInfo(slot).slotDescription.trimEnd(),
  };
}
