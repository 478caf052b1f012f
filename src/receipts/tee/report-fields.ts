/**
 * The fields of a confidential VM's report that a receipt's evidence rests on, read at the offsets
 * of the vendors' specifications: Intel's TDX DCAP quote v4 (a 48-byte header, then the TD quote
 * body) and AMD's SEV-SNP ATTESTATION_REPORT (SEV-SNP ABI specification, table "ATTESTATION_REPORT
 * Structure"). test/unit/receipt-tee-recorded.test.ts reads them from reports recorded on real
 * hardware (test/fixtures/tee/).
 */
export interface ReportFields {
  /** The format's version: 4 for a TDX quote v4; 2 to 5 for an SEV-SNP report. */
  version: number;
  /** The image measured at launch, 48 bytes: TDX's MRTD, SEV-SNP's MEASUREMENT. */
  measurement: Buffer;
  /** The 64 bytes the guest asked the report to carry. */
  reportData: Buffer;
}

/** A quote's TEE type for TDX (0 is SGX). */
const tdxTeeType = 0x81;

const tdx = {
  /** The header (48) and the TD quote body (584): the signature data follows. */
  minLength: 632,
  version: 0,
  teeType: 4,
  mrtd: 184,
  reportData: 568,
};

const sevSnp = {
  /** The whole report, its 512-byte signature included. */
  length: 0x4a0,
  version: 0,
  /** Versions 2 to 5 keep the fields read here where they are; a later one may not. */
  oldestVersion: 2,
  newestVersion: 5,
  signatureAlgorithm: 0x34,
  reportData: 0x50,
  measurement: 0x90,
};

/** SIGNATURE_ALGO of a report signed with ECDSA P-384 over SHA-384, the only one AMD defines. */
const ecdsaP384Sha384 = 1;

/**
 * The fields of `outblob` as its provider (configfs-tsm's `provider`) lays them out, or why it is
 * not a report read here. Only the layout is checked here: the vendor's
 * signature over the report is the verifier's (Intel's and AMD's certificate chains).
 */
export function reportFields(provider: string, outblob: Buffer): ReportFields | string {
  if (provider === 'tdx_guest') {
    if (outblob.length < tdx.minLength) return `a TDX quote is at least ${tdx.minLength} bytes, not ${outblob.length}`;
    const version = outblob.readUInt16LE(tdx.version);
    if (version !== 4) return `TDX quote version ${version} is not read here (only version 4)`;
    const teeType = outblob.readUInt32LE(tdx.teeType);
    if (teeType !== tdxTeeType) return `the quote's TEE type is 0x${teeType.toString(16)}, not TDX's 0x81`;
    return fieldsAt(outblob, version, tdx.mrtd, tdx.reportData);
  }
  if (provider === 'sev_guest') {
    if (outblob.length < sevSnp.length) return `an SEV-SNP report is ${sevSnp.length} bytes, not ${outblob.length}`;
    const version = outblob.readUInt32LE(sevSnp.version);
    const { oldestVersion, newestVersion } = sevSnp;
    if (version < oldestVersion || version > newestVersion) {
      return `SEV-SNP report version ${version} is not read here (only ${oldestVersion} to ${newestVersion})`;
    }
    const algorithm = outblob.readUInt32LE(sevSnp.signatureAlgorithm);
    if (algorithm !== ecdsaP384Sha384) return `the report's signature algorithm is ${algorithm}, not ECDSA P-384's 1`;
    return fieldsAt(outblob, version, sevSnp.measurement, sevSnp.reportData);
  }
  return `reports of provider ${provider} are not read here`;
}

const fieldsAt = (outblob: Buffer, version: number, measurementAt: number, reportDataAt: number): ReportFields => ({
  version,
  measurement: outblob.subarray(measurementAt, measurementAt + 48),
  reportData: outblob.subarray(reportDataAt, reportDataAt + 64),
});
