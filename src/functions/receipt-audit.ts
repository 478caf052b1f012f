import type { EntityManager } from '@mikro-orm/postgresql';
import { MasterKeyMissingError, type MasterKeys } from '../crypto/envelope.ts';
import { checkReceipt, type ClaimLevel, type ReceiptCheck } from '../receipts/receipt-check.ts';
import { receiptFieldsOf } from '../receipts/receipt-claims.ts';
import type { ListedReceiptKey } from '../receipts/receipt-keys.ts';
import { ReceiptLayoutError, receiptFields, type ReceiptFields } from '../receipts/receipt-preimage.ts';
import { Execution } from './execution.entity.ts';
import { receiptSubject } from './execution-receipt.ts';
import { readReceipt } from './execution.sql.ts';
import { openResult } from './result-seal.ts';
import { versionOf } from './run-version.ts';
import type { Versioned } from './versioned-fields.ts';

/**
 * Checks an execution's stored receipt against its row as it stands: every hash is rebuilt from
 * the row (its params, sealed result, error, logs, secrets read, times) and the version it ran,
 * then compared with the signed one. A row edited since it ended (one byte of its logs) fails.
 * Undefined: no such execution.
 */
export async function auditReceipt(
  em: EntityManager,
  masters: MasterKeys,
  executionId: string,
  keys: readonly ListedReceiptKey[],
  require: ClaimLevel = 'signed',
): Promise<ReceiptCheck | undefined> {
  const execution = await em.findOne(Execution, { id: executionId }, { populate: ['function'] });
  if (!execution) return undefined;
  const stored = await readReceipt(em, executionId);
  if (!stored) {
    return { holds: false, claim: 'none', level: undefined, problems: [`execution ${executionId} has no receipt`] };
  }
  let signed: ReceiptFields;
  try {
    signed = receiptFields(stored.preimage);
  } catch (error) {
    if (!(error instanceof ReceiptLayoutError)) throw error;
    return checkReceipt(stored, keys);
  }
  const wanted = execution.functionVersion ?? execution.function.version;
  const version = await versionOf(em, execution.function, wanted).catch(() => undefined);
  // Without it, placeholders: its two hashes are left out of the comparison below, and said so.
  const ran: Versioned & { version: number } = version
    ? { ...version, version: wanted }
    : { runtime: 'node18', timeout: 0, environment: {}, secrets: [], allowedHosts: [], code: '', version: wanted };
  const facts = { networkMagic: signed.networkMagic, version: ran, hostCalls: stored.hostCalls };
  const result = await openResult(em, masters, execution).then(
    (value) => ({ value }),
    (error: unknown) => {
      if (unopenable(error)) return undefined;
      throw error;
    },
  );
  const subject = receiptSubject(execution, facts, result?.value);
  const rebuilt = receiptFieldsOf(subject, signed.publicKey, { type: signed.teeType, hash: signed.evidenceHash });
  const expected: Partial<ReceiptFields> = { ...rebuilt };
  if (!version) {
    delete expected.codeHash;
    delete expected.configHash;
  }
  if (!result) delete expected.outcomeHash;
  const check = checkReceipt(stored, keys, expected, require, stored.evidence);
  if (!result) check.problems.unshift(resultUnopened);
  if (!version) check.problems.push(`version ${wanted} is no longer kept: codeHash and configHash were not checked`);
  return { ...check, holds: check.holds && version !== undefined && result !== undefined };
}

const resultUnopened =
  'the stored result does not open (a byte of its ciphertext was edited, or a master key not given sealed it): outcomeHash was not checked';

/** A sealed result that cannot be opened: its authentication fails (an edited byte), or its master key is not held. */
const unopenable = (error: unknown) =>
  error instanceof MasterKeyMissingError ||
  (error instanceof Error && error.message === 'Unsupported state or unable to authenticate data');
