import { z } from 'zod';
import { executionStatus } from '../shared/outcomes.ts';
import type { ReadReceipt } from '../functions/execution.sql.ts';
import { receiptFields } from './receipt-preimage.ts';

const hex = (bytes: Buffer) => bytes.toString('hex');

/**
 * A receipt as the API answers it: every field of its preimage, decoded, beside the preimage and
 * signature themselves (hex) and the host calls its hostCallsHash covers. `claim` says what it
 * proves: `signed`, by this deployment's key, no hardware attestation; `tee`, by a key bound to a
 * confidential VM's report (docs/security.md, "Receipts").
 */
export function receiptView(executionId: string, stored: ReadReceipt) {
  const fields = receiptFields(stored.preimage);
  return {
    executionId,
    functionId: stored.functionId,
    keyId: stored.keyId,
    claim: fields.teeType === 0 ? ('signed' as const) : ('tee' as const),
    networkMagic: fields.networkMagic,
    executionIdHash: hex(fields.executionIdHash),
    functionIdHash: hex(fields.functionIdHash),
    codeHash: hex(fields.codeHash),
    configHash: hex(fields.configHash),
    inputHash: hex(fields.inputHash),
    status: fields.status,
    outcomeHash: hex(fields.outcomeHash),
    logsHash: hex(fields.logsHash),
    secretsReadHash: hex(fields.secretsReadHash),
    hostCallsHash: hex(fields.hostCallsHash),
    startedAt: fields.startedAt,
    completedAt: fields.completedAt,
    publicKey: hex(fields.publicKey),
    teeType: fields.teeType,
    evidenceHash: hex(fields.evidenceHash),
    hostCalls: stored.hostCalls,
    ...(stored.evidence ? { evidence: stored.evidence.toString('base64') } : {}),
    preimage: hex(stored.preimage),
    signature: hex(stored.signature),
  };
}

const hash = z.string().regex(/^[0-9a-f]{64}$/);

export const receiptSchema = z
  .strictObject({
    executionId: z.string(),
    functionId: z.string(),
    keyId: z.string().describe('The key that signed it, as GET /v1/receipt-keys lists it.'),
    claim: z
      .enum(['signed', 'tee'])
      .describe(
        "`signed`: by this deployment's receipt key, no hardware attestation. `tee`: by a key bound to a confidential VM's report (`evidence`).",
      ),
    networkMagic: z.number().int(),
    executionIdHash: hash,
    functionIdHash: hash,
    codeHash: hash.describe(
      'SHA-256 of the code as it ran (TypeScript before stripping): what `neoflow fn hash` prints.',
    ),
    configHash: hash,
    inputHash: hash,
    status: z.enum([executionStatus.completed, executionStatus.failed]),
    outcomeHash: hash,
    logsHash: hash,
    secretsReadHash: hash,
    hostCallsHash: hash,
    startedAt: z.number().int().describe('Milliseconds since the epoch.'),
    completedAt: z.number().int().describe('Milliseconds since the epoch.'),
    publicKey: z
      .string()
      .regex(/^0[23][0-9a-f]{64}$/)
      .describe('The signing key, compressed secp256r1, hex.'),
    teeType: z.number().int(),
    evidenceHash: hash,
    hostCalls: z
      .array(z.strictObject({ method: z.string(), target: z.string(), resultHash: hash }))
      .describe('The chain reads and fetches the code made, in order: what hostCallsHash covers.'),
    evidence: z.string().optional().describe("The confidential VM's report binding the key, base64."),
    preimage: z
      .string()
      .regex(/^[0-9a-f]+$/)
      .describe('The signed bytes, hex: 394 bytes at the offsets of docs/security.md.'),
    signature: z
      .string()
      .regex(/^[0-9a-f]{128}$/)
      .describe('ECDSA secp256r1 over SHA-256 of the preimage, 64 bytes r‖s, hex.'),
  })
  .meta({ id: 'Receipt' });
