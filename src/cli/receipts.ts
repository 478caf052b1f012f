import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import type { Config } from '../config.ts';
import { masterKeysOf } from '../crypto/master-keys.ts';
import { auditReceipt } from '../functions/receipt-audit.ts';
import type { ClaimLevel } from '../receipts/receipt-check.ts';
import { newReceiptPrivateKey, receiptKeyOf } from '../receipts/receipt-key.ts';
import { receiptKeysOf, type ListedReceiptKey } from '../receipts/receipt-keys.ts';
import { withCliOrm } from './database.ts';

/** `neoflow receipts …`'s flags. */
export interface ReceiptsOptions {
  /** Where the receipt keys are read: a URL (a deployment's /v1/receipt-keys) or a JSON file; unset, the configuration's. */
  keys: string | undefined;
  require: string | undefined;
}

const usage =
  'usage: neoflow receipts key | neoflow receipts verify <executionId> [--keys URL|FILE] [--require signed|tee]';

export async function receiptsCommand(config: Config, [action, target]: string[], options: ReceiptsOptions) {
  if (action === 'key') return printNewKey();
  if (action !== 'verify' || !target) throw new Error(usage);
  const require = requiredLevel(options.require);
  const keys = options.keys === undefined ? receiptKeysOf(config).listed : await readKeys(options.keys);
  const masters = masterKeysOf(config);
  const check = await withCliOrm(config, (orm) => auditReceipt(orm.em.fork(), masters, target, keys, require));
  if (!check) throw new Error(`no execution ${target} in this database`);
  if (check.holds) {
    process.stdout.write(`receipt of ${target} holds: ${check.claim}\n`);
    return;
  }
  process.stdout.write(`receipt of ${target} does NOT hold (it claims: ${check.claim})\n`);
  for (const problem of check.problems) process.stdout.write(`  - ${problem}\n`);
  process.exitCode = 1;
}

/** A new key: the variable to set on every worker and API process, and what verifiers register. */
function printNewKey() {
  const privateKey = newReceiptPrivateKey();
  const key = receiptKeyOf(privateKey);
  process.stdout.write(
    `# Set on every API and worker process; keep it as secret as NEOFLOW_MASTER_KEY.\n` +
      `# On rotation, add the old key's public key to NEOFLOW_RECEIPT_KEYS_RETIRED.\n` +
      `# Public key ${key.publicKey.toString('hex')} (id ${key.id}): what /v1/receipt-keys lists and a contract registers.\n` +
      `NEOFLOW_RECEIPT_KEY=${privateKey}\n`,
  );
}

function requiredLevel(value: string | undefined): ClaimLevel {
  if (value === undefined || value === 'signed' || value === 'tee') return value ?? 'signed';
  throw new Error(`--require takes signed or tee, not ${value}`);
}

const keysAnswer = z.object({
  data: z.array(
    z.object({
      id: z.string(),
      publicKey: z.string().regex(/^0[23][0-9a-f]{64}$/),
      status: z.enum(['active', 'retired']),
    }),
  ),
});

/** The keys as /v1/receipt-keys answers them, from the URL or a file holding that answer. */
async function readKeys(source: string): Promise<ListedReceiptKey[]> {
  const text = /^https?:\/\//.test(source)
    ? await (await fetch(source, { signal: AbortSignal.timeout(10_000) })).text()
    : await readFile(source, 'utf8');
  const parsed = keysAnswer.safeParse(JSON.parse(text));
  if (!parsed.success) throw new Error(`${source} does not hold receipt keys as GET /v1/receipt-keys answers them`);
  return parsed.data.data;
}
