import { describe, expect, it } from 'vitest';
import { checkReceipt } from '../../src/receipts/receipt-check.ts';
import { reportFields, type ReportFields } from '../../src/receipts/tee/report-fields.ts';
import { bindWorkerKey, evidenceProblems } from '../../src/receipts/tee/worker-key.ts';
import { receiptSignedBy, recordedReports, type TeeProvider } from '../support/tee-reports.ts';

const providers = Object.keys(recordedReports) as TeeProvider[];

const fieldsOf = (provider: TeeProvider) => reportFields(provider, recordedReports[provider].outblob) as ReportFields;

/** A key bound to the recorded report as it is: its report data is someone else's, not over this key. */
const boundToRecorded = (provider: TeeProvider) =>
  bindWorkerKey({
    report: async () => ({ provider, outblob: recordedReports[provider].outblob, auxblob: Buffer.alloc(0) }),
  });

describe('reports recorded on real TDX and SEV-SNP hardware (test/fixtures/tee)', () => {
  it.each(providers)(
    "a recorded %s report's version, measurement and report data are read at the offsets its source's own tests read them",
    (provider) => {
      const recorded = recordedReports[provider];
      const fields = fieldsOf(provider);
      expect({
        version: fields.version,
        measurement: fields.measurement.toString('hex'),
        reportData: fields.reportData.toString('hex'),
      }).toEqual({ version: recorded.version, measurement: recorded.measurement, reportData: recorded.reportData });
    },
  );

  it('a report is refused when it is not the kind its provider names, or is cut short', () => {
    const { tdx_guest: tdx, sev_guest: sev } = recordedReports;
    expect(reportFields('tdx_guest', sev.outblob)).toBe('TDX quote version 2 is not read here (only version 4)');
    expect(reportFields('sev_guest', tdx.outblob)).toBe('SEV-SNP report version 131076 is not read here (only 2 to 5)');
    const sgx = Buffer.from(tdx.outblob);
    sgx.writeUInt32LE(0, 4);
    expect(reportFields('tdx_guest', sgx)).toBe("the quote's TEE type is 0x0, not TDX's 0x81");
    const unsigned = Buffer.from(sev.outblob);
    unsigned.writeUInt32LE(0, 0x34);
    expect(reportFields('sev_guest', unsigned)).toBe("the report's signature algorithm is 0, not ECDSA P-384's 1");
    expect(reportFields('tdx_guest', tdx.outblob.subarray(0, 631))).toBe('a TDX quote is at least 632 bytes, not 631');
    expect(reportFields('sev_guest', sev.outblob.subarray(0, 1183))).toBe('an SEV-SNP report is 1184 bytes, not 1183');
    expect(reportFields('sgx', tdx.outblob)).toBe('reports of provider sgx are not read here');
  });

  it.each(providers)(
    "a recorded %s report, over other data than our key's, does not bind a key: the tee check refuses its receipt",
    async (provider) => {
      const bound = await boundToRecorded(provider);
      expect(evidenceProblems(bound.evidence, bound.evidenceHash, bound.key.publicKey)).toEqual([
        "the report's data does not bind the key",
      ]);
      const check = checkReceipt(receiptSignedBy(bound), [], {}, 'tee', bound.evidence);
      expect(check).toMatchObject({
        holds: false,
        level: 'tee',
        problems: ["the report's data does not bind the key"],
      });
    },
  );

  it('evidence that names no report is refused, not thrown on', async () => {
    const { sha256 } = await import('../../src/receipts/receipt-claims.ts');
    const bound = await boundToRecorded('sev_guest');
    for (const evidence of ['null', '7', '{"provider":"sev_guest","nonce":"00"}']) {
      const bytes = Buffer.from(evidence);
      expect(evidenceProblems(bytes, sha256(bytes), bound.key.publicKey)).toEqual([
        'the evidence names no provider, nonce and report',
      ]);
    }
  });
});
