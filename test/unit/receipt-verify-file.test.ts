import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { data } from '../../src/api/route-kit.ts';
import { receiptsCommand, type ReceiptsOptions } from '../../src/cli/receipts.ts';
import { loadConfig } from '../../src/config.ts';
import { receiptView } from '../../src/receipts/receipt.view.ts';
import { receiptFieldsOf } from '../../src/receipts/receipt-claims.ts';
import { checkReceiptDocument, parseReceiptDocument } from '../../src/cli/receipt-document.ts';
import { receiptKeyId, receiptKeyOf, signReceipt } from '../../src/receipts/receipt-key.ts';
import { receiptPreimage } from '../../src/receipts/receipt-preimage.ts';
import { goldenPreimage, goldenSignature, key, sha, subject } from '../support/golden-receipt.ts';

/** The golden receipt as GET /v1/functions/{id}/executions/{eid}/receipt answers it. */
const view = receiptView(subject.executionId, {
  functionId: subject.functionId,
  keyId: key.id,
  preimage: Buffer.from(goldenPreimage, 'hex'),
  signature: Buffer.from(goldenSignature, 'hex'),
  hostCalls: subject.hostCalls,
  evidence: null,
});
/** As the API answers it (route-kit's `data`): `{success: true, data}`. */
const answer = JSON.stringify(data(view).body);
const listed = (publicKey: Buffer, status = 'active') => ({
  id: receiptKeyId(publicKey),
  publicKey: publicKey.toString('hex'),
  status,
});
const keysAnswer = { data: [listed(key.publicKey)] };

let dir: string;
let server: Server;
let apiUrl: string;
const file = (name: string) => join(dir, name);

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'neoflow-receipt-'));
  await writeFile(file('receipt.json'), answer);
  await writeFile(file('keys.json'), JSON.stringify(keysAnswer));
  await writeFile(file('other-keys.json'), JSON.stringify({ data: [listed(receiptKeyOf(sha('other')).publicKey)] }));
  await writeFile(file('result.json'), JSON.stringify(subject.outcome));
  await writeFile(file('params.json'), JSON.stringify(subject.params));
  await writeFile(file('code.ts'), subject.code);
  server = createServer((request, response) => {
    const body = request.url === '/v1/receipt-keys' ? JSON.stringify({ data: [listed(key.publicKey, 'retired')] }) : '';
    response.writeHead(body ? 200 : 404, { 'content-type': 'application/json' }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  apiUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await rm(dir, { recursive: true, force: true });
});

afterEach(() => {
  process.exitCode = undefined;
  vi.restoreAllMocks();
});

const none: ReceiptsOptions = {
  keys: undefined,
  require: undefined,
  result: undefined,
  params: undefined,
  code: undefined,
};

/** `neoflow receipts verify <file> …` through the command's own code: its exit code and what it printed. */
async function verify(target: string, options: Partial<ReceiptsOptions> = {}) {
  const printed: string[] = [];
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
    printed.push(String(chunk));
    return true;
  });
  await receiptsCommand(loadConfig({ NEOFLOW_ENV: 'test', NEOFLOW_API_URL: apiUrl }), ['verify', target], {
    ...none,
    ...options,
  });
  vi.restoreAllMocks();
  return { code: process.exitCode ?? 0, stdout: printed.join('') };
}

describe('neoflow receipts verify receipt.json (offline)', () => {
  it('the golden receipt with its result, params and code holds: exit 0, the claim and each value matched named', async () => {
    const { code, stdout } = await verify(file('receipt.json'), {
      keys: file('keys.json'),
      result: file('result.json'),
      params: file('params.json'),
      code: file('code.ts'),
    });
    expect(stdout).toContain(
      `receipt of ${subject.executionId} holds: signed by this deployment's receipt key; no hardware attestation`,
    );
    expect(stdout).toContain('is the one signed (outcomeHash)');
    expect(stdout).toContain('are those signed (inputHash)');
    expect(stdout).toContain('is the code that ran (codeHash)');
    expect(code).toBe(0);
  });

  it("without --keys it reads NEOFLOW_API_URL's /v1/receipt-keys, where a retired key still verifies", async () => {
    const { code, stdout } = await verify(file('receipt.json'));
    expect(stdout).toContain('holds: signed by');
    expect(stdout).toContain(`is retired at ${apiUrl}/v1/receipt-keys`);
    expect(code).toBe(0);
  });

  it("the automation route's bare receipt holds too", async () => {
    await writeFile(file('bare.json'), JSON.stringify(view));
    expect((await verify(file('bare.json'), { keys: file('keys.json') })).code).toBe(0);
  });

  it('one flipped byte of the file (a field, the preimage, the signature) exits 1 naming the claim that fails', async () => {
    const cases = [
      { field: 'outcomeHash', first: 'its preimage is not the one its fields make' },
      { field: 'preimage', first: 'its preimage is not the one its fields make' },
      { field: 'signature', first: 'the signature does not verify over the preimage' },
    ] as const;
    for (const { field, first } of cases) {
      const at = answer.indexOf(`"${field}":"`) + field.length + 10;
      const flipped = Buffer.from(answer);
      flipped[at] = flipped[at] === 0x30 ? 0x31 : 0x30;
      await writeFile(file('flipped.json'), flipped);
      const { code, stdout } = await verify(file('flipped.json'), { keys: file('keys.json') });
      expect(stdout).toContain(`does NOT hold: ${first}`);
      expect(code).toBe(1);
      process.exitCode = undefined;
    }
  });

  const wrongValues = [
    { flag: 'result', name: 'wrong-result.json', text: JSON.stringify({ doubled: 43 }), hash: 'outcomeHash' },
    { flag: 'params', name: 'wrong-params.json', text: JSON.stringify({ x: 22 }), hash: 'inputHash' },
    { flag: 'code', name: 'wrong-code.ts', text: subject.code.replace('2', '3'), hash: 'codeHash' },
  ] as const;
  it.each(wrongValues)(
    'a --$flag other than the one signed exits 1 naming $hash',
    async ({ flag, name, text, hash }) => {
      await writeFile(file(name), text);
      const { code, stdout } = await verify(file('receipt.json'), { keys: file('keys.json'), [flag]: file(name) });
      expect(stdout).toContain(`does NOT hold: ${hash} differs from the signed one`);
      expect(code).toBe(1);
    },
  );

  it('keys that do not hold the signing key exit 1 naming the key', async () => {
    const { code, stdout } = await verify(file('receipt.json'), { keys: file('other-keys.json') });
    expect(stdout).toContain(
      `does NOT hold: it is signed by key ${key.publicKey.toString('hex')}, which is not one of the receipt keys given`,
    );
    expect(code).toBe(1);
  });

  it('--require tee exits 1 on a receipt with no hardware attestation', async () => {
    const { code, stdout } = await verify(file('receipt.json'), { keys: file('keys.json'), require: 'tee' });
    expect(stdout).toContain('a TEE claim was required');
    expect(code).toBe(1);
  });

  it('a file over the size cap is refused before it is parsed; a missing .json is not taken for an id', async () => {
    await writeFile(file('huge.json'), Buffer.alloc(4 * 1024 * 1024 + 1, 0x20));
    await expect(verify(file('huge.json'), { keys: file('keys.json') })).rejects.toThrow(/is over 4194304 bytes/);
    await expect(verify(file('absent.json'))).rejects.toThrow(/no receipt file/);
    await expect(verify(file('not-a-receipt.json'))).rejects.toThrow(/no receipt file/);
  });

  it('a file that is not a receipt is refused with a sentence', async () => {
    await writeFile(file('keys-as-receipt.json'), JSON.stringify(keysAnswer));
    await expect(verify(file('keys-as-receipt.json'), { keys: file('keys.json') })).rejects.toThrow(
      /is not a receipt as GET/,
    );
  });
});

describe('checking a receipt document', () => {
  it('every single flipped bit of the answer makes it fail (unparsable, or a claim that does not hold)', () => {
    const keys = keysAnswer.data as { id: string; publicKey: string; status: 'active' }[];
    const original = parseReceiptDocument(answer);
    expect(typeof original).not.toBe('string');
    for (let at = 0; at < answer.length; at++) {
      const flipped = Buffer.from(answer);
      flipped[at]! ^= 1 << (at % 7);
      const receipt = parseReceiptDocument(flipped.toString('utf8'));
      if (typeof receipt === 'string') continue;
      expect(checkReceiptDocument(receipt, keys).holds, `byte ${at} (${answer[at]})`).toBe(false);
    }
  });

  it("a validly signed receipt of another execution, relabelled with this one's id, fails on executionIdHash", () => {
    const other = receiptPreimage(receiptFieldsOf({ ...subject, executionId: 'exec_other' }, key.publicKey));
    const relabelled = receiptView(subject.executionId, {
      functionId: subject.functionId,
      keyId: key.id,
      preimage: other,
      signature: signReceipt(key, other),
      hostCalls: subject.hostCalls,
      evidence: null,
    });
    const check = checkReceiptDocument(relabelled, keysAnswer.data as never);
    expect(check.problems).toEqual(['executionIdHash differs from the signed one']);
    expect(check.holds).toBe(false);
  });
});
