import { createHash, randomBytes } from 'node:crypto';
import { canonicalBytes } from '../canonical-json.ts';
import { sha256 } from '../receipt-claims.ts';
import { newReceiptPrivateKey, receiptKeyOf, type ReceiptKey } from '../receipt-key.ts';
import { teeType } from '../receipt-preimage.ts';
import type { ReportSource, TeeReport } from './configfs-tsm.ts';

const bindingTag = Buffer.from('neoflow/worker-key/v1\0', 'utf8');

/** Where each provider's report holds the 64 bytes of report data (their specifications). */
const reportDataOffsets: Record<string, number> = {
  // Intel TDX quote v4: a 48-byte header, then REPORTDATA at 520 in the TD quote body.
  tdx_guest: 568,
  // AMD SEV-SNP ATTESTATION_REPORT: REPORT_DATA at 0x50.
  sev_guest: 0x50,
};

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
 * receipt's and its report holds the key's report data where its provider puts it. The report's
 * own signature and measurement are the vendor's to check (Intel's or AMD's certificate chains).
 */
export function evidenceProblems(evidence: Buffer, evidenceHash: Buffer, publicKey: Buffer): string[] {
  if (!sha256(evidence).equals(evidenceHash)) return ["the evidence is not the one the receipt's evidenceHash names"];
  let parsed: { provider: string; nonce: string; publicKey: string; outblob: string };
  try {
    parsed = JSON.parse(evidence.toString('utf8')) as typeof parsed;
  } catch {
    return ['the evidence is not JSON'];
  }
  if (parsed.publicKey !== publicKey.toString('hex')) return ['the evidence binds another key'];
  const report: Pick<TeeReport, 'provider' | 'outblob'> = {
    provider: parsed.provider,
    outblob: Buffer.from(parsed.outblob, 'base64'),
  };
  const at = reportDataOffsets[report.provider];
  if (at === undefined) return [`reports of provider ${report.provider} are not read here`];
  const wanted = bindingReportData(publicKey, Buffer.from(parsed.nonce, 'hex'));
  return report.outblob.subarray(at, at + 64).equals(wanted) ? [] : ["the report's data does not bind the key"];
}
