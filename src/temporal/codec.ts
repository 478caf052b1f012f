import { createCipheriv, createDecipheriv, createSecretKey, type KeyObject, randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import proto from '@temporalio/proto';
import { keyId } from '../crypto/key-id.ts';
import type { DataConverter, Payload, PayloadCodec } from '@temporalio/common';

const { Payload: PayloadMessage } = proto.temporal.api.common.v1;

/** The metadata Temporal's encryption samples use, so other tools recognise sealed payloads. */
export const encryptedEncoding = 'binary/encrypted';
const keyIdField = 'encryption-key-id';
const algorithm = 'aes-256-gcm';
const ivLength = 12;
const tagLength = 16;

const text = (value: string) => Buffer.from(value, 'utf8');
const metadataText = (payload: Payload, field: string) => {
  const value = payload.metadata?.[field];
  return value ? Buffer.from(value).toString('utf8') : undefined;
};

/**
 * Seals each whole payload (metadata and data) with AES-256-GCM under a fresh 12-byte IV; the key
 * id is authenticated too, so it cannot be swapped. Payloads that are not sealed decode unchanged,
 * so history written before encryption stays readable. Payloads sealed under a previous key (named
 * in `NEOFLOW_PREVIOUS_PAYLOAD_KEYS`) still open, so a payload key can be rotated while histories
 * and schedules written under the old one live on; every new payload is sealed under the current.
 */
export class EncryptionCodec implements PayloadCodec {
  /** Key objects made once: a Buffer key is turned into one at every cipher, on every payload. */
  readonly #key: KeyObject;
  readonly #keyId: string;
  /** Every key that opens payloads, the current one included, by key id. */
  readonly #opening: Map<string, KeyObject>;

  constructor(key: Buffer, previousKeys: Buffer[] = []) {
    for (const candidate of [key, ...previousKeys]) {
      if (candidate.length !== 32) throw new Error('The payload key must be 32 bytes.');
    }
    this.#key = createSecretKey(key);
    this.#keyId = keyId(key);
    this.#opening = new Map(
      [...previousKeys, key].map((candidate) => [keyId(candidate), createSecretKey(candidate)] as const),
    );
  }

  /** Whether a payload is sealed under one of the previous keys: it wants sealing again. */
  sealedUnderPreviousKey(payload: Payload): boolean {
    const sealedWith = metadataText(payload, keyIdField);
    return (
      metadataText(payload, 'encoding') === encryptedEncoding &&
      sealedWith !== undefined &&
      sealedWith !== this.#keyId &&
      this.#opening.has(sealedWith)
    );
  }

  async encode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => this.#seal(payload));
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) =>
      metadataText(payload, 'encoding') === encryptedEncoding ? this.#open(payload) : payload,
    );
  }

  #seal(payload: Payload): Payload {
    const iv = randomBytes(ivLength);
    const cipher = createCipheriv(algorithm, this.#key, iv, { authTagLength: tagLength }).setAAD(text(this.#keyId));
    const sealed = Buffer.concat([cipher.update(PayloadMessage.encode(payload).finish()), cipher.final()]);
    return {
      metadata: { encoding: text(encryptedEncoding), [keyIdField]: text(this.#keyId) },
      data: Buffer.concat([iv, sealed, cipher.getAuthTag()]),
    };
  }

  #open(payload: Payload): Payload {
    const keyId = metadataText(payload, keyIdField);
    const key = keyId === undefined ? undefined : this.#opening.get(keyId);
    if (key === undefined || keyId === undefined) throw new Error(`Payload sealed with unknown key id "${keyId}".`);
    const data = Buffer.from(payload.data ?? []);
    if (data.length < ivLength + tagLength) throw new Error('Sealed payload is truncated.');
    const decipher = createDecipheriv(algorithm, key, data.subarray(0, ivLength), { authTagLength: tagLength })
      .setAAD(text(keyId))
      .setAuthTag(data.subarray(data.length - tagLength));
    const opened = Buffer.concat([decipher.update(data.subarray(ivLength, data.length - tagLength)), decipher.final()]);
    return PayloadMessage.decode(opened);
  }
}

/**
 * The module of the failure converter that moves failure messages and stack traces into a payload,
 * so the codec seals them too; the workflow bundle must be built with it (worker/bundle.ts).
 */
export const failureConverterPath = fileURLToPath(new URL('./failure-converter.ts', import.meta.url));

/** The one data converter of every Temporal client and worker: all must seal alike. */
export function dataConverter(payloadKey: Buffer, previousPayloadKeys: Buffer[] = []): DataConverter {
  return { payloadCodecs: [new EncryptionCodec(payloadKey, previousPayloadKeys)], failureConverterPath };
}
