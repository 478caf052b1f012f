import { randomBytes } from 'node:crypto';
import * as nodeFs from 'node:fs/promises';
import { join } from 'node:path';

/** A confidential VM's report over 64 bytes of our choosing, as its firmware signs it. */
interface TeeReport {
  /** The kernel's name of the report's source: `tdx_guest`, `sev_guest`… */
  provider: string;
  outblob: Buffer;
  /** What some providers add beside the report (SEV-SNP's certificates); empty when none. */
  auxblob: Buffer;
}

/** What reports come from: Linux configfs-tsm on a confidential VM, a stand-in in tests. */
export interface ReportSource {
  report(reportData: Buffer): Promise<TeeReport>;
}

export class TeeReportError extends Error {
  override readonly name = 'TeeReportError';
}

/** The file operations a report takes: the kernel's configfs answers them; tests stand one in over a temp directory. */
export interface ConfigfsFiles {
  mkdir(path: string): Promise<unknown>;
  writeFile(path: string, data: Buffer): Promise<void>;
  readFile(path: string): Promise<Buffer>;
  rmdir(path: string): Promise<void>;
}

/** Where the kernel mounts configfs-tsm's reports (Documentation/ABI/testing/configfs-tsm). */
const configfsTsmReports = '/sys/kernel/config/tsm/report';

/**
 * Reports through configfs-tsm: a directory of our own under `root`, `inblob` written, `outblob`
 * read. `generation` counts the writes to the entry: one more than before ours, or another writer
 * raced us and the report may be over its data, not ours.
 */
export function configfsTsm(root = configfsTsmReports, fs: ConfigfsFiles = nodeFs): ReportSource {
  return {
    async report(reportData) {
      if (reportData.length !== 64) throw new TeeReportError('report data is 64 bytes');
      const entry = join(root, `neoflow-${process.pid}-${randomBytes(4).toString('hex')}`);
      try {
        await fs.mkdir(entry);
      } catch (error) {
        throw new TeeReportError(`no configfs-tsm at ${root} (not a confidential VM?): ${(error as Error).message}`);
      }
      try {
        const generation = async () => Number.parseInt((await fs.readFile(join(entry, 'generation'))).toString(), 10);
        const before = await generation();
        await fs.writeFile(join(entry, 'inblob'), reportData);
        const outblob = await fs.readFile(join(entry, 'outblob'));
        const provider = (await fs.readFile(join(entry, 'provider'))).toString().trim();
        const auxblob = await fs.readFile(join(entry, 'auxblob')).catch(() => Buffer.alloc(0));
        if ((await generation()) !== before + 1) {
          throw new TeeReportError('another writer changed the report entry while it was read');
        }
        return { provider, outblob, auxblob };
      } finally {
        await fs.rmdir(entry).catch(() => undefined);
      }
    },
  };
}
