import { mkdtemp, mkdir, readFile, readdir, rm, rmdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { openReceiptSigner, receiptSubject } from '../../src/functions/execution-receipt.ts';
import { checkReceipt } from '../../src/receipts/receipt-check.ts';
import { receiptFieldsOf } from '../../src/receipts/receipt-claims.ts';
import { signReceipt } from '../../src/receipts/receipt-key.ts';
import { receiptPreimage } from '../../src/receipts/receipt-preimage.ts';
import { configfsTsm, TeeReportError, type ConfigfsFiles } from '../../src/receipts/tee/configfs-tsm.ts';
import { bindWorkerKey, evidenceProblems } from '../../src/receipts/tee/worker-key.ts';
import { receiptSignedBy, recordedReports, recordedReportOver, type TeeProvider } from '../support/tee-reports.ts';

/**
 * A temp directory standing in for configfs-tsm, answering as the kernel does: a new entry holds
 * `provider` and `generation`; writing `inblob` bumps the generation and makes `outblob`, the
 * provider's report recorded on real hardware with the inblob written at its report-data offset
 * (test/support/tee-reports.ts). `extraWrites` counts a writer that races ours.
 */
function standIn(provider: TeeProvider, extraWrites = 0): ConfigfsFiles {
  return {
    mkdir: async (path) => {
      await mkdir(path);
      await writeFile(join(path, 'provider'), `${provider}\n`);
      await writeFile(join(path, 'generation'), '0\n');
    },
    writeFile: async (path, data) => {
      const entry = dirname(path);
      await writeFile(path, data);
      if (basename(path) !== 'inblob') return;
      await writeFile(join(entry, 'outblob'), recordedReportOver(provider, data));
      const generation = Number.parseInt(await readFile(join(entry, 'generation'), 'utf8'), 10);
      await writeFile(join(entry, 'generation'), `${generation + 1 + extraWrites}\n`);
    },
    readFile: (path) => readFile(path),
    // configfs removes an entry's attribute files with it.
    rmdir: (path) => rm(path, { recursive: true }).then(() => undefined),
  };
}

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'neoflow-tsm-'));
});
afterEach(() => rm(root, { recursive: true, force: true }));

describe('a worker key bound through configfs-tsm (a stand-in directory: no confidential VM here)', () => {
  it.each(Object.keys(recordedReports) as TeeProvider[])(
    'a recorded %s report over the key binds it, and a receipt it signs checks at the tee level without being listed',
    async (provider) => {
      const bound = await bindWorkerKey(configfsTsm(root, standIn(provider)));
      expect(await readdir(root)).toEqual([]);
      expect(evidenceProblems(bound.evidence, bound.evidenceHash, bound.key.publicKey)).toEqual([]);
      const check = checkReceipt(receiptSignedBy(bound), [], {}, 'tee', bound.evidence);
      expect(check).toMatchObject({ holds: true, level: 'tee', problems: [] });
      expect(check.claim).toContain('confidential VM');
    },
  );

  it("another key's evidence, none, or evidence whose report holds other data fail the tee check", async () => {
    const bound = await bindWorkerKey(configfsTsm(root, standIn('tdx_guest')));
    const other = await bindWorkerKey(configfsTsm(root, standIn('tdx_guest')));
    const receipt = receiptSignedBy(bound);
    expect(checkReceipt(receipt, [], {}, 'tee', other.evidence).problems).toContain(
      "the evidence is not the one the receipt's evidenceHash names",
    );
    expect(checkReceipt(receipt, [], {}, 'tee', null).problems).toContain('it claims a TEE but carries no evidence');
    const parsed = JSON.parse(bound.evidence.toString()) as { outblob: string };
    const report = Buffer.from(parsed.outblob, 'base64');
    report[600]! ^= 1;
    const forged = Buffer.from(JSON.stringify({ ...parsed, outblob: report.toString('base64') }));
    expect(evidenceProblems(forged, bound.evidenceHash, bound.key.publicKey)).toHaveLength(1);
    const { createHash } = await import('node:crypto');
    const rehashed = createHash('sha256').update(forged).digest();
    expect(evidenceProblems(forged, rehashed, bound.key.publicKey)).toEqual([
      "the report's data does not bind the key",
    ]);
  });

  it('a report raced by another writer, and a host without configfs-tsm, are refused', async () => {
    await expect(bindWorkerKey(configfsTsm(root, standIn('sev_guest', 1)))).rejects.toThrow(TeeReportError);
    expect(await readdir(root)).toEqual([]);
    await expect(bindWorkerKey(configfsTsm(join(root, 'absent')))).rejects.toThrow(/no configfs-tsm/);
    await rmdir(root).catch(() => undefined);
  });

  it('NEOFLOW_RECEIPT_TEE=configfs-tsm gives the worker its own bound key; a receipt with no TEE fails --require tee', async () => {
    const config = loadConfig({ NEOFLOW_ENV: 'test', NEOFLOW_RECEIPT_TEE: 'configfs-tsm' });
    const signer = (await openReceiptSigner(config, configfsTsm(root, standIn('tdx_guest'))))!;
    expect(signer.tee.type).toBe(1);
    expect(signer.evidence).not.toBeNull();
    const plain = loadConfig({ NEOFLOW_ENV: 'test', NEOFLOW_RECEIPT_KEY: '11'.repeat(32) });
    const deployment = (await openReceiptSigner(plain))!;
    expect(deployment.tee.type).toBe(0);
    const preimage = receiptPreimage(
      receiptFieldsOf(
        receiptSubject(
          {
            id: 'exec_x',
            function: { id: 'func_x' },
            status: 'completed',
            params: {},
            logs: [],
            secretsRead: [],
            error: null,
            startedAt: new Date(1),
            completedAt: new Date(2),
          } as never,
          {
            networkMagic: 1,
            version: {
              code: '',
              runtime: 'node18',
              timeout: 1,
              environment: {},
              secrets: [],
              allowedHosts: [],
              version: 1,
            },
            hostCalls: [],
          },
          null,
        ),
        deployment.key.publicKey,
      ),
    );
    const keys = [
      { id: deployment.key.id, publicKey: deployment.key.publicKey.toString('hex'), status: 'active' as const },
    ];
    const receipt = { preimage, signature: signReceipt(deployment.key, preimage) };
    expect(checkReceipt(receipt, keys).holds).toBe(true);
    expect(checkReceipt(receipt, keys, {}, 'tee').problems).toEqual([
      'a TEE claim was required; the receipt has no hardware attestation',
    ]);
  });
});
