import type { ListedReceiptKey } from './receipt-keys.ts';
import { evidenceProblems } from './tee/worker-key.ts';
import { receiptSignatureHolds } from './receipt-key.ts';
import { ReceiptLayoutError, receiptFields, type ReceiptFields } from './receipt-preimage.ts';

/** What a receipt proves once checked, weakest to strongest. */
export type ClaimLevel = 'signed' | 'tee';

export interface ReceiptCheck {
  /** Every check held (and the level required was reached). */
  holds: boolean;
  /** The claim the receipt makes, in words; what holds when `holds`. */
  claim: string;
  level: ClaimLevel | undefined;
  /** What failed, one sentence each. */
  problems: string[];
}

const claims: Record<ClaimLevel, string> = {
  signed: "signed by this deployment's receipt key; no hardware attestation",
  tee: "signed by a worker key bound to a confidential VM's report (configfs-tsm); the report's measurement is yours to check",
};

/**
 * Checks a receipt: its preimage decodes, its key is one of `keys`, the signature over it holds,
 * and each field of `expected` (values rebuilt from what the checker holds: the execution's row,
 * a result, the code) equals the signed one. Each failure is named; none stops the others.
 */
export function checkReceipt(
  receipt: { preimage: Uint8Array; signature: Uint8Array },
  keys: readonly ListedReceiptKey[],
  expected: Partial<ReceiptFields> = {},
  require: ClaimLevel = 'signed',
  evidence: Buffer | null = null,
): ReceiptCheck {
  let fields: ReceiptFields;
  try {
    fields = receiptFields(receipt.preimage);
  } catch (error) {
    if (!(error instanceof ReceiptLayoutError)) throw error;
    return { holds: false, claim: 'none', level: undefined, problems: [`the preimage is malformed: ${error.message}`] };
  }
  const level: ClaimLevel = fields.teeType === 0 ? 'signed' : 'tee';
  const problems: string[] = [];
  const publicKey = fields.publicKey.toString('hex');
  if (level === 'tee') {
    // A worker's own key is vouched for by its report, not listed.
    if (!evidence) problems.push('it claims a TEE but carries no evidence');
    else problems.push(...evidenceProblems(evidence, fields.evidenceHash, fields.publicKey));
  } else if (!keys.some((listed) => listed.publicKey === publicKey)) {
    problems.push(`it is signed by key ${publicKey}, which is not one of the receipt keys given`);
  }
  if (!receiptSignatureHolds(fields.publicKey, receipt.preimage, receipt.signature)) {
    problems.push('the signature does not verify over the preimage');
  }
  for (const [name, value] of Object.entries(expected) as [keyof ReceiptFields, ReceiptFields[keyof ReceiptFields]][]) {
    if (!sameField(fields[name], value)) problems.push(`${name} differs from the signed one`);
  }
  if (require === 'tee' && level !== 'tee')
    problems.push('a TEE claim was required; the receipt has no hardware attestation');
  return { holds: problems.length === 0, claim: claims[level], level, problems };
}

const sameField = (a: unknown, b: unknown) => (Buffer.isBuffer(a) && Buffer.isBuffer(b) ? a.equals(b) : a === b);
