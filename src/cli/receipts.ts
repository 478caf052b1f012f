import { readFile, stat } from 'node:fs/promises';
import { z } from 'zod';
import type { Config } from '../config.ts';
import { masterKeysOf } from '../crypto/master-keys.ts';
import { asStored } from '../functions/execution-receipt.ts';
import { auditReceipt } from '../functions/receipt-audit.ts';
import type { ClaimLevel, ReceiptCheck } from '../receipts/receipt-check.ts';
import { jsonHash, sha256 } from '../receipts/receipt-claims.ts';
import { checkReceiptDocument, parseReceiptDocument } from './receipt-document.ts';
import { newReceiptPrivateKey, receiptKeyOf } from '../receipts/receipt-key.ts';
import { receiptKeysOf, type ListedReceiptKey } from '../receipts/receipt-keys.ts';
import type { ReceiptFields } from '../receipts/receipt-preimage.ts';
import { withCliOrm } from './database.ts';
import { readFunctionFile } from './function-file.ts';
import { executionStatus } from '../shared/outcomes.ts';

/** `neoflow receipts …`'s flags. */
export interface ReceiptsOptions {
  /** Where the receipt keys are read: a URL (a deployment's /v1/receipt-keys) or a JSON file. */
  keys: string | undefined;
  require: string | undefined;
  /** Files holding values to check against a receipt file's hashes: the result, the params (JSON), the code. */
  result: string | undefined;
  params: string | undefined;
  code: string | undefined;
}

const usage =
  'usage: neoflow receipts key | neoflow receipts verify <executionId | receipt.json> [--keys URL|FILE] [--result F] [--params F] [--code F] [--require signed|tee]';

/** A receipt as the API answers it is a few KiB (its host calls and evidence the most); a result or params at most 1 MiB. */
const maxReceiptBytes = 4 * 1024 * 1024;
const maxValueBytes = 1024 * 1024;
const maxKeysBytes = 256 * 1024;

export async function receiptsCommand(config: Config, [action, target]: string[], options: ReceiptsOptions) {
  if (action === 'key') return printNewKey();
  if (action !== 'verify' || !target) throw new Error(usage);
  const require = requiredLevel(options.require);
  if (await isReceiptFile(target)) return verifyReceiptFile(config, target, options, require);
  if (options.result ?? options.params ?? options.code)
    throw new Error('--result, --params and --code check a receipt file (receipt.json), not an execution id');
  const keys = options.keys === undefined ? receiptKeysOf(config).listed : await readKeys(options.keys);
  const masters = masterKeysOf(config);
  const check = await withCliOrm(config, (orm) => auditReceipt(orm.em.fork(), masters, target, keys, require));
  if (!check) throw new Error(`no execution ${target} in this database`);
  report(target, check, []);
}

/** An execution id never names a file; a path to one (or any name ending .json) is a receipt file. */
async function isReceiptFile(target: string) {
  const isFile = await stat(target).then(
    (found) => found.isFile(),
    () => false,
  );
  if (!isFile && target.endsWith('.json')) throw new Error(`no receipt file ${target}`);
  return isFile;
}

/**
 * `receipts verify receipt.json`: offline, with no database. Keys from --keys or, unset, the
 * deployment's /v1/receipt-keys at NEOFLOW_API_URL; each value supplied is hashed as the receipt
 * hashes it (a result or params as stored, then RFC 8785; code as `neoflow fn hash` reads it).
 */
async function verifyReceiptFile(config: Config, file: string, options: ReceiptsOptions, require: ClaimLevel) {
  const receipt = parseReceiptDocument((await readBounded(file, maxReceiptBytes)).toString('utf8'));
  if (typeof receipt === 'string') throw new Error(`${file}: ${receipt}`);
  const keysSource = options.keys ?? `${config.client.apiUrl.replace(/\/+$/, '')}/v1/receipt-keys`;
  const keys = await readKeys(keysSource);
  const supplied: Partial<ReceiptFields> = {};
  const matched: string[] = [];
  if (options.result !== undefined) {
    supplied.outcomeHash = jsonHash(asStored(await readJson(options.result, '--result')));
    matched.push(
      `the ${receipt.status === executionStatus.failed ? 'error' : 'result'} in ${options.result} is the one signed (outcomeHash)`,
    );
  }
  if (options.params !== undefined) {
    supplied.inputHash = jsonHash(asStored(await readJson(options.params, '--params')));
    matched.push(`the params in ${options.params} are those signed (inputHash)`);
  }
  if (options.code !== undefined) {
    supplied.codeHash = sha256((await readFunctionFile(options.code)).code);
    matched.push(`the code in ${options.code} is the code that ran (codeHash)`);
  }
  const check = checkReceiptDocument(receipt, keys, supplied, require);
  const key = keys.find((listed) => listed.publicKey === receipt.publicKey);
  if (key) matched.unshift(`key ${key.id} is ${key.status} at ${keysSource}`);
  report(receipt.executionId, check, matched);
}

function report(target: string, check: ReceiptCheck, matched: string[]) {
  if (check.holds) {
    process.stdout.write(`receipt of ${target} holds: ${check.claim}\n`);
    for (const line of matched) process.stdout.write(`  ✓ ${line}\n`);
    return;
  }
  process.stdout.write(`receipt of ${target} does NOT hold: ${check.problems[0]} (it claims: ${check.claim})\n`);
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
  let json: unknown;
  try {
    json = JSON.parse((await readBounded(source, maxKeysBytes)).toString('utf8'));
  } catch (error) {
    if (!(error instanceof SyntaxError)) throw error;
  }
  const parsed = keysAnswer.safeParse(json);
  if (!parsed.success) throw new Error(`${source} does not hold receipt keys as GET /v1/receipt-keys answers them`);
  return parsed.data.data;
}

async function readJson(file: string, flag: string): Promise<unknown> {
  try {
    return JSON.parse((await readBounded(file, maxValueBytes)).toString('utf8'));
  } catch (error) {
    if (error instanceof SyntaxError) throw new Error(`${flag} ${file} is not JSON`, { cause: error });
    throw error;
  }
}

/** A file's or a URL's bytes, refused past `maxBytes` before they are parsed (on the size first, then as they stream). */
async function readBounded(source: string, maxBytes: number): Promise<Buffer> {
  const tooLarge = () => new Error(`${source} is over ${maxBytes} bytes`);
  if (!/^https?:\/\//.test(source)) {
    if ((await stat(source)).size > maxBytes) throw tooLarge();
    return readFile(source);
  }
  const response = await fetch(source, { signal: AbortSignal.timeout(10_000) }).catch((error: unknown) => {
    throw new Error(`cannot reach ${source}: ${(error as Error).message}`, { cause: error });
  });
  if (!response.ok) throw new Error(`${source} answered ${response.status}`);
  if (Number(response.headers.get('content-length') ?? 0) > maxBytes) throw tooLarge();
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (!response.body) return Buffer.alloc(0);
  for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
    size += chunk.length;
    if (size > maxBytes) throw tooLarge();
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}
