/**
 * The bytes an execution's receipt signs: fixed offsets, so that a NeoVM contract slices a field
 * with one SUBSTR (docs/security.md, "Receipts", prints this table). Every hash is SHA-256; every
 * integer little-endian, as NeoVM reads integers.
 *
 * | offset | size | field |
 * |-------:|-----:|-------|
 * |      0 |   19 | tag `neoflow/receipt/v1` and a zero byte |
 * |     19 |    4 | network magic (u32) |
 * |     23 |   32 | executionIdHash: of the execution id's UTF-8 |
 * |     55 |   32 | functionIdHash: of the function id's UTF-8 |
 * |     87 |   32 | codeHash: of the code as it ran (TypeScript before stripping), UTF-8 |
 * |    119 |   32 | configHash: of the canonical JSON of runtime, timeout, environment, secrets, allowedHosts, version |
 * |    151 |   32 | inputHash: of the params' canonical JSON |
 * |    183 |    1 | status: 1 completed, 2 failed |
 * |    184 |   32 | outcomeHash: of the result's canonical JSON (completed) or the error's (failed) |
 * |    216 |   32 | logsHash: of the logs' canonical JSON, as stored (masked) |
 * |    248 |   32 | secretsReadHash: of the canonical JSON of the secrets read, `[{name, version}]` |
 * |    280 |   32 | hostCallsHash: of the canonical JSON of the chain reads and fetches, `[{method, target, resultHash}]` |
 * |    312 |    8 | startedAt (u64, ms since the epoch) |
 * |    320 |    8 | completedAt (u64, ms since the epoch) |
 * |    328 |   33 | the signing key, compressed secp256r1 |
 * |    361 |    1 | TEE type: 0 none, 1 a confidential VM's configfs-tsm report |
 * |    362 |   32 | evidenceHash: of the TEE evidence; zeros with none |
 * |    394 |      | end |
 *
 * The tag's length alone keeps a receipt from ever being a Neo transaction's sign data (36 bytes).
 */

const receiptTag = Buffer.from('neoflow/receipt/v1\0', 'utf8');

const receiptStatus = { completed: 1, failed: 2 } as const;
export type ReceiptStatus = keyof typeof receiptStatus;

export const teeType = { none: 0, configfsTsm: 1 } as const;

/** What a receipt claims, field by field. */
export interface ReceiptFields {
  networkMagic: number;
  executionIdHash: Buffer;
  functionIdHash: Buffer;
  codeHash: Buffer;
  configHash: Buffer;
  inputHash: Buffer;
  status: ReceiptStatus;
  outcomeHash: Buffer;
  logsHash: Buffer;
  secretsReadHash: Buffer;
  hostCallsHash: Buffer;
  startedAt: number;
  completedAt: number;
  publicKey: Buffer;
  teeType: number;
  evidenceHash: Buffer;
}

type Kind = 'tag' | 'u8' | 'u32' | 'u64' | 'bytes';

/** The layout, in order: each field's size and how it is written. */
const layout: { name: keyof ReceiptFields | 'tag'; size: number; kind: Kind }[] = [
  { name: 'tag', size: receiptTag.length, kind: 'tag' },
  { name: 'networkMagic', size: 4, kind: 'u32' },
  { name: 'executionIdHash', size: 32, kind: 'bytes' },
  { name: 'functionIdHash', size: 32, kind: 'bytes' },
  { name: 'codeHash', size: 32, kind: 'bytes' },
  { name: 'configHash', size: 32, kind: 'bytes' },
  { name: 'inputHash', size: 32, kind: 'bytes' },
  { name: 'status', size: 1, kind: 'u8' },
  { name: 'outcomeHash', size: 32, kind: 'bytes' },
  { name: 'logsHash', size: 32, kind: 'bytes' },
  { name: 'secretsReadHash', size: 32, kind: 'bytes' },
  { name: 'hostCallsHash', size: 32, kind: 'bytes' },
  { name: 'startedAt', size: 8, kind: 'u64' },
  { name: 'completedAt', size: 8, kind: 'u64' },
  { name: 'publicKey', size: 33, kind: 'bytes' },
  { name: 'teeType', size: 1, kind: 'u8' },
  { name: 'evidenceHash', size: 32, kind: 'bytes' },
];

/** Each field's offset, as the table above documents them. */
export const receiptOffsets = Object.fromEntries(
  layout.map(({ name }, index) => [name, layout.slice(0, index).reduce((at, field) => at + field.size, 0)]),
) as Record<keyof ReceiptFields | 'tag', number>;

export const receiptPreimageLength = layout.reduce((length, field) => length + field.size, 0);

export class ReceiptLayoutError extends Error {
  override readonly name = 'ReceiptLayoutError';
}

const statusByte = (status: ReceiptStatus) => receiptStatus[status];

/** The preimage of `fields`; throws when a hash or key has the wrong length or a number is out of range. */
export function receiptPreimage(fields: ReceiptFields): Buffer {
  const out = Buffer.alloc(receiptPreimageLength);
  for (const { name, size, kind } of layout) {
    const at = receiptOffsets[name];
    if (kind === 'tag') receiptTag.copy(out, at);
    else if (kind === 'u32') out.writeUInt32LE(fields.networkMagic, at);
    else if (kind === 'u64') out.writeBigUInt64LE(BigInt(fields[name as 'startedAt' | 'completedAt']), at);
    else if (kind === 'u8') out.writeUInt8(name === 'status' ? statusByte(fields.status) : fields.teeType, at);
    else {
      const bytes = fields[name as keyof ReceiptFields] as Buffer;
      if (bytes.length !== size) throw new ReceiptLayoutError(`${name} must be ${size} bytes, not ${bytes.length}`);
      bytes.copy(out, at);
    }
  }
  return out;
}

/** The fields of a preimage; throws on a length, tag or status byte that is not a v1 receipt's. */
export function receiptFields(preimage: Uint8Array): ReceiptFields {
  const bytes = Buffer.from(preimage);
  if (bytes.length !== receiptPreimageLength) {
    throw new ReceiptLayoutError(`a receipt preimage is ${receiptPreimageLength} bytes, not ${bytes.length}`);
  }
  if (!bytes.subarray(0, receiptTag.length).equals(receiptTag)) throw new ReceiptLayoutError('not a v1 receipt');
  const fields: Record<string, unknown> = {};
  for (const { name, size, kind } of layout) {
    const at = receiptOffsets[name];
    if (kind === 'u32') fields[name] = bytes.readUInt32LE(at);
    else if (kind === 'u64') fields[name] = Number(bytes.readBigUInt64LE(at));
    else if (kind === 'u8') fields[name] = bytes.readUInt8(at);
    else if (kind === 'bytes') fields[name] = Buffer.from(bytes.subarray(at, at + size));
  }
  const status = (Object.keys(receiptStatus) as ReceiptStatus[]).find((key) => receiptStatus[key] === fields.status);
  if (!status) throw new ReceiptLayoutError(`status byte ${String(fields.status)} is neither completed nor failed`);
  return { ...fields, status } as unknown as ReceiptFields;
}
