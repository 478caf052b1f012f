import { createHash, randomBytes } from 'node:crypto';
import { canonicalBytes } from '../canonical-json.ts';
import { sha256 } from '../receipt-claims.ts';
import { newReceiptPrivateKey, receiptKeyOf, type ReceiptKey } from '../receipt-key.ts';
import { teeType } from '../receipt-preimage.ts';
import type { ReportSource } from './configfs-tsm.ts';
import { reportFields } from './report-fields.ts';

const bindingTag = Buffer.from('neoflow/worker-key/v1\0', 'utf8');

/** The report data that binds `publicKey`: SHA-256 of the tag and the key, then the nonce. */
const bindingReportData = (publicKey: Buffer, nonce: Buffer) =>
  Buffer.concat([createHash('sha256').update(bindingTag).update(publicKey).digest(), nonce]);

/** A process's own receipt key, bound to its confidential VM by a report; `evidence` what a verifier reads. */
interface BoundKey {
  key: ReceiptKey;
  /** Canonical JSON of the provider, nonce, key and report: SHA-256 of it is the receipts' evidenceHash. */
  evidence: Buffer;
  evidenceHash: Buffer;
  teeType: number;
}

/**
 * A fresh key, made in this process and never written anywhere, and a report over it: on a
 * confidential VM the report proves the key was made inside the measured image it names.
 */
export async function bindWorkerKey(source: ReportSource): Promise<BoundKey> {
  const key = receiptKeyOf(newReceiptPrivateKey());
  const nonce = randomBytes(32);
  const report = await source.report(bindingReportData(key.publicKey, nonce));
  const evidence = canonicalBytes({
    provider: report.provider,
    nonce: nonce.toString('hex'),
    publicKey: key.publicKey.toString('hex'),
    outblob: report.outblob.toString('base64'),
    auxblob: report.auxblob.toString('base64'),
  });
  return { key, evidence, evidenceHash: sha256(evidence), teeType: teeType.configfsTsm };
}

/**
 * What a receipt's evidence proves about `publicKey`: problems, or none when its hash is the
 * receipt's and its report, a TDX quote v4 or an SEV-SNP report (report-fields.ts), holds the
 * key's report data. The report's own signature and measurement are the verifier's to check
 * (Intel's or AMD's certificate chains, the image they expect).
 */
export function evidenceProblems(evidence: Buffer, evidenceHash: Buffer, publicKey: Buffer): string[] {
  if (!sha256(evidence).equals(evidenceHash)) return ["the evidence is not the one the receipt's evidenceHash names"];
  let parsed: unknown;
  try {
    parsed = JSON.parse(evidence.toString('utf8'));
  } catch {
    return ['the evidence is not JSON'];
  }
  const { provider, nonce, publicKey: bound, outblob } = (parsed ?? {}) as Record<string, unknown>;
  if (typeof provider !== 'string' || typeof nonce !== 'string' || typeof outblob !== 'string') {
    return ['the evidence names no provider, nonce and report'];
  }
  if (bound !== publicKey.toString('hex')) return ['the evidence binds another key'];
  const report = reportFields(provider, Buffer.from(outblob, 'base64'));
  if (typeof report === 'string') return [report];
  const wanted = bindingReportData(publicKey, Buffer.from(nonce, 'hex'));
  return report.reportData.equals(wanted) ? [] : ["the report's data does not bind the key"];
}
