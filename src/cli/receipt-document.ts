import { z } from 'zod';
import { checkReceipt, type ClaimLevel, type ReceiptCheck } from '../receipts/receipt-check.ts';
import { jsonHash, sha256 } from '../receipts/receipt-claims.ts';
import { receiptKeyId } from '../receipts/receipt-key.ts';
import type { ListedReceiptKey } from '../receipts/receipt-keys.ts';
import { ReceiptLayoutError, receiptPreimage, type ReceiptFields } from '../receipts/receipt-preimage.ts';
import { receiptSchema } from '../receipts/receipt.view.ts';

/**
 * A receipt as the API answers it: the function route's envelope `{success: true, data: receipt}`
 * or the automation route's bare receipt. Strict, so that no byte of a saved answer goes unread.
 */
const receiptDocument = z.union([receiptSchema, z.strictObject({ success: z.literal(true), data: receiptSchema })]);

type ReceiptDocument = z.infer<typeof receiptSchema>;

/** The receipt in `text` (JSON as GET …/receipt answers it); a sentence saying why not otherwise. */
export function parseReceiptDocument(text: string): ReceiptDocument | string {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return 'it is not JSON';
  }
  const parsed = receiptDocument.safeParse(json);
  if (!parsed.success) return 'it is not a receipt as GET /v1/functions/{id}/executions/{eid}/receipt answers it';
  return 'data' in parsed.data ? parsed.data.data : parsed.data;
}

const bytes = (hex: string) => Buffer.from(hex, 'hex');

/** The fields a receipt's JSON states, as its preimage holds them. */
function statedFields(receipt: ReceiptDocument): ReceiptFields {
  return {
    networkMagic: receipt.networkMagic,
    executionIdHash: bytes(receipt.executionIdHash),
    functionIdHash: bytes(receipt.functionIdHash),
    codeHash: bytes(receipt.codeHash),
    configHash: bytes(receipt.configHash),
    inputHash: bytes(receipt.inputHash),
    status: receipt.status,
    outcomeHash: bytes(receipt.outcomeHash),
    logsHash: bytes(receipt.logsHash),
    secretsReadHash: bytes(receipt.secretsReadHash),
    hostCallsHash: bytes(receipt.hostCallsHash),
    startedAt: receipt.startedAt,
    completedAt: receipt.completedAt,
    publicKey: bytes(receipt.publicKey),
    teeType: receipt.teeType,
    evidenceHash: bytes(receipt.evidenceHash),
  };
}

/**
 * Checks a receipt held offline, with no database: its preimage is rebuilt from the fields it
 * states (and must equal the preimage it carries), its ids and host calls must hash to the signed
 * hashes, its signature must hold for one of `keys`, and each of `supplied` (hashes the checker
 * made of values it holds: a result, params, code) must equal the signed one. Problems come in
 * that order, so the first names the first claim that fails.
 */
export function checkReceiptDocument(
  receipt: ReceiptDocument,
  keys: readonly ListedReceiptKey[],
  supplied: Partial<ReceiptFields> = {},
  require: ClaimLevel = 'signed',
): ReceiptCheck {
  let preimage: Buffer;
  try {
    preimage = receiptPreimage(statedFields(receipt));
  } catch (error) {
    if (!(error instanceof ReceiptLayoutError) && !(error instanceof RangeError)) throw error;
    return {
      holds: false,
      claim: 'none',
      level: undefined,
      problems: [`its fields make no preimage: ${error.message}`],
    };
  }
  const problems: string[] = [];
  if (receipt.preimage !== preimage.toString('hex')) problems.push('its preimage is not the one its fields make');
  if (receipt.keyId !== receiptKeyId(bytes(receipt.publicKey))) problems.push("its keyId is not its public key's");
  if (receipt.claim !== (receipt.teeType === 0 ? 'signed' : 'tee')) problems.push("its claim is not its teeType's");
  const stated = {
    executionIdHash: sha256(receipt.executionId),
    functionIdHash: sha256(receipt.functionId),
    hostCallsHash: jsonHash(receipt.hostCalls),
  };
  const evidence = receipt.evidence === undefined ? null : Buffer.from(receipt.evidence, 'base64');
  const signature = bytes(receipt.signature);
  const check = checkReceipt({ preimage, signature }, keys, { ...stated, ...supplied }, require, evidence);
  return { ...check, holds: check.holds && problems.length === 0, problems: [...problems, ...check.problems] };
}
