import { readFileSync } from 'node:fs';
import { signReceipt } from '../../src/receipts/receipt-key.ts';
import { receiptPreimage } from '../../src/receipts/receipt-preimage.ts';
import type { bindWorkerKey } from '../../src/receipts/tee/worker-key.ts';

/**
 * Reports recorded on confidential VMs (test/fixtures/tee/README.md says where from), each with
 * field values its source's own tests assert of it: values read by other parsers, from the same
 * bytes, which ours must find at its offsets.
 */
const fixture = (name: string) => readFileSync(new URL(`../fixtures/tee/${name}`, import.meta.url));

/** configfs-tsm's `provider` for each kind of report. */
export type TeeProvider = 'tdx_guest' | 'sev_guest';

export const recordedReports = {
  /** go-tdx-guest validate/validate_test.go, TestTdxQuote: `mrTd` and `reportData`. */
  tdx_guest: {
    outblob: fixture('tdx-quote-v4-sapphire-rapids.dat'),
    version: 4,
    measurement: '6363b8043668a3ad953278e10389574d326c6749fb78aa810ecd9336923db86f22fc00b8dcd404bc10d5e119d7215cbb',
    reportData:
      '6c62dec1b8191749a31dab490be532a35944dea47caef1f980863993d9899545' +
      'eb7406a38d1eed313b987a467dacead6f0c87a6d766c66f6f29f8acb281f1113',
  },
  /** go-sev-guest tools/check/check_test.go: the `measurement` and `report_data` flags' good values. */
  sev_guest: {
    outblob: fixture('sev-snp-report-milan.bin'),
    version: 2,
    measurement: 'b07af9620f3b839b47996422ddec6058338951d984e312115131ea82705eaf5b6bdf8a9ece31a5a608eb0cf2e4872b01',
    reportData: '0102030405'.padEnd(128, '0'),
  },
} satisfies Record<TeeProvider, { outblob: Buffer; version: number; measurement: string; reportData: string }>;

/** Where each provider's report holds its 64 bytes of report data, as the specifications say. */
export const reportDataOffsets: Record<TeeProvider, number> = { tdx_guest: 568, sev_guest: 0x50 };

/**
 * The recorded report of `provider` with `reportData` written where it goes: the report that
 * machine would have made over our data, its layout and every other field real. Its vendor
 * signature, over the recorded data, no longer holds (Neoflow does not check it).
 */
export function recordedReportOver(provider: TeeProvider, reportData: Buffer): Buffer {
  const report = Buffer.from(recordedReports[provider].outblob);
  reportData.copy(report, reportDataOffsets[provider]);
  return report;
}

/** A receipt of zeros signed by a worker's bound key, claiming its TEE: what a tee check reads. */
export function receiptSignedBy(bound: Awaited<ReturnType<typeof bindWorkerKey>>) {
  const zero = Buffer.alloc(32);
  const preimage = receiptPreimage({
    networkMagic: 1,
    executionIdHash: zero,
    functionIdHash: zero,
    codeHash: zero,
    configHash: zero,
    inputHash: zero,
    status: 'completed',
    outcomeHash: zero,
    logsHash: zero,
    secretsReadHash: zero,
    hostCallsHash: zero,
    startedAt: 1,
    completedAt: 2,
    publicKey: bound.key.publicKey,
    teeType: bound.teeType,
    evidenceHash: bound.evidenceHash,
  });
  return { preimage, signature: signReceipt(bound.key, preimage) };
}
