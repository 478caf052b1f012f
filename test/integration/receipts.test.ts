import { createHash } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { wallet } from '@cityofzion/neon-js';
import { afterAll, describe, expect, it, beforeAll } from 'vitest';
import { Execution } from '../../src/functions/execution.entity.ts';
import { newExecution } from '../../src/functions/execution-record.ts';
import { FunctionDef } from '../../src/functions/function.entity.ts';
import { failExecution } from '../../src/functions/run-execution.ts';
import { noTee } from '../../src/receipts/receipt-claims.ts';
import { storeEnd } from '../../src/functions/execution.sql.ts';
import { canonicalJson } from '../../src/receipts/canonical-json.ts';
import { openReceiptKeys } from '../../src/receipts/receipt-keys.ts';
import { newReceiptPrivateKey, receiptKeyOf } from '../../src/receipts/receipt-key.ts';
import { receiptPreimage, receiptFields } from '../../src/receipts/receipt-preimage.ts';
import { signReceipt } from '../../src/receipts/receipt-key.ts';
import { executionStatus } from '../../src/shared/outcomes.ts';
import { neoflow } from '../support/cli.ts';
import { testApi, type ApiCall } from '../support/http.ts';
import { issueKey, keysCliEnv } from '../support/keys.ts';
import { until } from '../support/polling.ts';
import { testReceiptKey } from '../support/temporal.ts';
import { apiWithWorkerForThisFile } from '../support/worker.ts';

/** A key retired before this deployment's: listed, so that its receipts still verify. */
const retiredKey = receiptKeyOf(newReceiptPrivateKey());
const running = apiWithWorkerForThisFile({
  env: { NEOFLOW_RECEIPT_KEYS_RETIRED: retiredKey.publicKey.toString('hex') },
});
const activeKey = receiptKeyOf(testReceiptKey);

let call: ApiCall;
let apiKey: string;
/** Where the file form's receipts, results, params and code are written, as a verifier saves them. */
let dir: string;
beforeAll(async () => {
  apiKey = (await issueKey(running.api.database.orm)).key;
  call = testApi(running.api.url, apiKey);
  dir = await mkdtemp(join(tmpdir(), 'neoflow-receipts-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const sha = (text: string) => createHash('sha256').update(text).digest('hex');

const code = `export default async function (context: { params: { n: number }; log: { info(m: string): void }; services: { blockchain: { getBlockCount(): Promise<number> } } }) {
  const height = await context.services.blockchain.getBlockCount();
  context.log.info('height read');
  if (context.params.n < 0) throw new Error('negative');
  return { doubled: context.params.n * 2, read: height > 0 };
}
`;

let counter = 0;
async function deploy(source = code): Promise<string> {
  const created = await call('POST', '/functions', {
    name: `receipt-${++counter}`,
    code: source,
    runtime: 'typescript',
  });
  expect(created.status).toBe(201);
  return created.body.data!.id as string;
}

/** `neoflow receipts verify` over this file's database, with the deployment's keys unless told. */
const verify = (executionId: string, env: Record<string, string> = {}) =>
  neoflow(['receipts', 'verify', executionId], {
    ...keysCliEnv(running.api.database.url),
    NEOFLOW_RECEIPT_KEY: testReceiptKey,
    ...env,
  });

/** The signer a worker opens with the tests' NEOFLOW_RECEIPT_KEY (openReceiptSigner). */
const deploymentSigner = { key: activeKey, tee: noTee, evidence: null };

/** How many receipts the execution has: one at most, whatever ended it. */
async function receiptsOf(executionId: string): Promise<number> {
  const [row] = await running.api.database.orm.em
    .fork()
    .getConnection()
    .execute<{ n: number }[]>(`select count(*)::int as n from execution_receipts where execution_id = ?`, [
      executionId,
    ]);
  return row!.n;
}

/** `neoflow receipts verify <file>` as anyone holding the API's answers runs it: no database, the keys over HTTP. */
const verifyFile = (file: string, ...flags: string[]) =>
  neoflow(['receipts', 'verify', join(dir, file), '--keys', `${running.api.url}/v1/receipt-keys`, ...flags], {
    NEOFLOW_DATA_DIR: dir,
  });

/** An edit of the stored row behind the service's back: `sql` with the execution's id as its one parameter. */
const editRow = (sql: string, executionId: string) =>
  running.api.database.orm.em.fork().getConnection().execute(sql, [executionId]);

/** Saves an API answer's JSON in `dir`, as `curl > file` would. */
const save = (file: string, value: unknown) => writeFile(join(dir, file), JSON.stringify(value));

describe('execution receipts', () => {
  it("a completed run's answer carries a receipt neon-js verifies, whose hashes are the run's", async () => {
    const functionId = await deploy();
    const invoked = await call('POST', `/functions/${functionId}/invoke`, { params: { n: 21 } });
    expect(invoked.status).toBe(200);
    const executionId = invoked.body.data!.execution.id as string;
    const details = (await call('GET', `/functions/${functionId}/executions/${executionId}`)).body.data!;
    const receipt = details.receipt;
    expect((await call('GET', `/functions/${functionId}/executions/${executionId}/receipt`)).body.data).toEqual(
      receipt,
    );

    expect(wallet.verify(receipt.preimage, receipt.signature, activeKey.publicKey.toString('hex'))).toBe(true);
    expect(receipt).toMatchObject({
      executionId,
      functionId,
      keyId: activeKey.id,
      claim: 'signed',
      status: 'completed',
      networkMagic: await running.api.services.neo.getNetworkMagic(),
      executionIdHash: sha(executionId),
      codeHash: sha(code),
      inputHash: sha('{"n":21}'),
      outcomeHash: sha(canonicalJson(details.result)),
      logsHash: sha(canonicalJson(details.logs)),
      secretsReadHash: sha('[]'),
      startedAt: Date.parse(details.startedAt),
      completedAt: Date.parse(details.completedAt),
      teeType: 0,
    });
    expect(details.result).toEqual({ doubled: 42, read: true });
    expect(receipt.hostCalls).toEqual([{ method: 'getBlockCount', target: '', resultHash: expect.any(String) }]);
    expect(receipt.hostCallsHash).toBe(sha(canonicalJson(receipt.hostCalls)));

    const checked = await verify(executionId);
    expect(checked).toMatchObject({ code: 0 });
    expect(checked.stdout).toContain("holds: signed by this deployment's receipt key; no hardware attestation");
  });

  it('a failed run is signed with its error; a running one answers 409 receipt_unavailable', async () => {
    const functionId = await deploy();
    const failed = await call('POST', `/functions/${functionId}/invoke`, { params: { n: -1 } });
    const executionId = failed.body.error!.details.executionId as string;
    const receipt = (await call('GET', `/functions/${functionId}/executions/${executionId}/receipt`)).body.data!;
    const details = (await call('GET', `/functions/${functionId}/executions/${executionId}`)).body.data!;
    expect(receipt.status).toBe('failed');
    expect(receipt.outcomeHash).toBe(sha(canonicalJson(details.error)));
    expect((await verify(executionId)).code).toBe(0);

    const slow = await deploy(
      'export default async () => { Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 2000); return 1; };',
    );
    const started = await call('POST', `/functions/${slow}/invoke`, { async: true });
    const runningId = started.body.data!.execution.id as string;
    const refused = await call('GET', `/functions/${slow}/executions/${runningId}/receipt`);
    expect(refused.status).toBe(409);
    expect(refused.body.error!.code).toBe('receipt_unavailable');
    const ended = await until(
      () => call('GET', `/functions/${slow}/executions/${runningId}`),
      (answer) => answer.body.data?.status !== 'running',
    );
    expect(ended.body.data.receipt.status).toBe('completed');
  });

  it('neoflow receipts verify exits 1, naming the field, after one byte of the stored row is edited', async () => {
    const functionId = await deploy();
    const invoked = await call('POST', `/functions/${functionId}/invoke`, { params: { n: 3 } });
    const executionId = invoked.body.data!.execution.id as string;
    expect((await verify(executionId)).code).toBe(0);
    // One byte of the stored logs: "height read" becomes "height reae".
    const connection = running.api.database.orm.em.fork().getConnection();
    await connection.execute(
      `update executions set logs = jsonb_set(logs, '{0,message}', '"height reae"') where id = ?`,
      [executionId],
    );
    const edited = await verify(executionId);
    expect(edited.code).toBe(1);
    expect(edited.stdout).toContain('does NOT hold');
    expect(edited.stdout).toContain('logsHash differs from the signed one');
    expect(edited.stdout).toContain('no hardware attestation');
    // One byte of the sealed result's ciphertext: it no longer opens, which is said, not thrown.
    const sealedResult = `update execution_results set ciphertext = set_byte(ciphertext, 40, get_byte(ciphertext, 40) # 1) where execution_id = ?`;
    await editRow(sealedResult, executionId);
    const unopened = await verify(executionId);
    expect(unopened.code).toBe(1);
    expect(unopened.stdout).toContain('does NOT hold: the stored result does not open');
    expect(unopened.stdout).toContain('outcomeHash was not checked');
    // And the params: {"n":3} becomes {"n":4}.
    await connection.execute(`update executions set params = '{"n":4}' where id = ?`, [executionId]);
    expect((await verify(executionId)).stdout).toContain('inputHash differs from the signed one');
  });

  it('neoflow receipts verify receipt.json, on a receipt fetched over HTTP, exits 0 naming the claim, and 1 naming the hash once a byte of the stored row is edited', async () => {
    const functionId = await deploy();
    await writeFile(join(dir, 'code.ts'), code);
    const invoked = await call('POST', `/functions/${functionId}/invoke`, { params: { n: 21 } });
    expect(invoked.status).toBe(200);
    const executionId = invoked.body.data!.execution.id as string;
    const fetchAnswers = async () => {
      const receipt = await fetch(`${running.api.url}/v1/functions/${functionId}/executions/${executionId}/receipt`, {
        headers: { 'X-API-Key': apiKey },
      });
      expect(receipt.status).toBe(200);
      await writeFile(join(dir, 'receipt.json'), await receipt.text());
      const details = (await call('GET', `/functions/${functionId}/executions/${executionId}`)).body.data!;
      await save('result.json', details.result);
      await save('params.json', details.params);
    };
    await fetchAnswers();
    const files = ['--result', join(dir, 'result.json'), '--params', join(dir, 'params.json')];
    const checked = await verifyFile('receipt.json', ...files, '--code', join(dir, 'code.ts'));
    expect(checked.stderr).toBe('');
    expect(checked.code).toBe(0);
    expect(checked.stdout).toContain(
      `receipt of ${executionId} holds: signed by this deployment's receipt key; no hardware attestation`,
    );
    expect(checked.stdout).toContain(`key ${activeKey.id} is active at ${running.api.url}/v1/receipt-keys`);
    expect(checked.stdout).toContain('is the one signed (outcomeHash)');
    expect(checked.stdout).toContain('are those signed (inputHash)');
    expect(checked.stdout).toContain('is the code that ran (codeHash)');

    // One byte of the stored row: its params {"n": 21} become {"n": 22}. The receipt, fetched
    // again, is the one signed; the params the API now answers are not the ones it covers.
    await editRow(`update executions set params = jsonb_set(params, '{n}', '22') where id = ?`, executionId);
    await fetchAnswers();
    const edited = await verifyFile('receipt.json', ...files);
    expect(edited.code).toBe(1);
    expect(edited.stdout).toContain(
      `receipt of ${executionId} does NOT hold: inputHash differs from the signed one (it claims: signed by this deployment's receipt key; no hardware attestation)`,
    );
    expect(edited.stdout).not.toContain('outcomeHash');
  });

  it("neoflow receipts verify receipt.json exits 1 naming outcomeHash once one byte of a failed run's stored error is edited", async () => {
    const functionId = await deploy();
    const failed = await call('POST', `/functions/${functionId}/invoke`, { params: { n: -1 } });
    const executionId = failed.body.error!.details.executionId as string;
    const receipt = await call('GET', `/functions/${functionId}/executions/${executionId}/receipt`);
    await save('failed-receipt.json', receipt.body);
    const errorOf = async () =>
      (await call('GET', `/functions/${functionId}/executions/${executionId}`)).body.data!.error as { message: string };
    await save('error.json', await errorOf());
    const checked = await verifyFile('failed-receipt.json', '--result', join(dir, 'error.json'));
    expect(checked.code).toBe(0);
    expect(checked.stdout).toContain("holds: signed by this deployment's receipt key; no hardware attestation");
    expect(checked.stdout).toContain('the error in');

    // "negative" becomes "negativf" in the row; the API answers the edited error.
    await editRow(
      `update executions set error = jsonb_set(error, '{message}', '"negativf"') where id = ?`,
      executionId,
    );
    const edited = await errorOf();
    expect(edited.message).toBe('negativf');
    await save('error.json', edited);
    const refused = await verifyFile('failed-receipt.json', '--result', join(dir, 'error.json'));
    expect(refused.code).toBe(1);
    expect(refused.stdout).toContain('does NOT hold: outcomeHash differs from the signed one');
    expect(refused.stdout).toContain('no hardware attestation');
    // The database form finds the same edit from the row itself.
    const audited = await verify(executionId);
    expect(audited.code).toBe(1);
    expect(audited.stdout).toContain('outcomeHash differs from the signed one');
  });

  it('an execution every attempt of which failed (failExecution) ends failed and signed once, with its ExecutionLostError as outcome', async () => {
    const functionId = await deploy();
    const em = running.api.database.orm.em.fork();
    const fn = await em.findOneOrFail(FunctionDef, { id: functionId });
    // Recorded, never run: what a workflow whose attempts all failed holds when it says its last word.
    const execution = newExecution(em, fn, fn.account.id, { n: 5 }, { type: 'api' });
    await em.insert(execution);
    const deps = () => ({
      em: running.api.database.orm.em.fork(),
      networks: running.api.services.networks,
      receipts: deploymentSigner,
    });
    const outcome = await failExecution(deps(), execution.id, 'The execution could not be run.');
    expect(outcome).toMatchObject({ status: 'failed', errorName: 'ExecutionLostError' });
    // A last word said twice (a retried local activity) ends nothing more and signs nothing more.
    expect(await failExecution(deps(), execution.id, 'again')).toEqual(outcome);
    expect(await receiptsOf(execution.id)).toBe(1);

    const details = (await call('GET', `/functions/${functionId}/executions/${execution.id}`)).body.data!;
    expect(details.error).toMatchObject({ name: 'ExecutionLostError', message: 'The execution could not be run.' });
    const receipt = (await call('GET', `/functions/${functionId}/executions/${execution.id}/receipt`)).body.data!;
    expect(wallet.verify(receipt.preimage, receipt.signature, activeKey.publicKey.toString('hex'))).toBe(true);
    expect(receipt).toMatchObject({
      status: 'failed',
      networkMagic: await running.api.services.neo.getNetworkMagic(),
      codeHash: sha(code),
      inputHash: sha('{"n":5}'),
      outcomeHash: sha(canonicalJson(details.error)),
      logsHash: sha('[]'),
      hostCalls: [],
      completedAt: Date.parse(details.completedAt),
    });
    expect((await verify(execution.id)).code).toBe(0);
  });

  it("lists the active and retired keys with no API key; a retired key's receipt still verifies, an unlisted one's does not", async () => {
    const listed = await fetch(`${running.api.url}/v1/receipt-keys`);
    expect(listed.status).toBe(200);
    expect(((await listed.json()) as { data: unknown }).data).toEqual([
      { id: activeKey.id, publicKey: activeKey.publicKey.toString('hex'), status: 'active' },
      { id: retiredKey.id, publicKey: retiredKey.publicKey.toString('hex'), status: 'retired' },
    ]);

    const functionId = await deploy();
    const executionId = (await call('POST', `/functions/${functionId}/invoke`, { params: { n: 1 } })).body.data!
      .execution.id as string;
    // The deployment rotates: a new key signs, this receipt's key is retired.
    const next = newReceiptPrivateKey();
    const rotated = { NEOFLOW_RECEIPT_KEY: next, NEOFLOW_RECEIPT_KEYS_RETIRED: activeKey.publicKey.toString('hex') };
    const afterRotation = await verify(executionId, rotated);
    expect(afterRotation.code).toBe(0);
    const forgotten = await verify(executionId, { NEOFLOW_RECEIPT_KEY: next });
    expect(forgotten.code).toBe(1);
    expect(forgotten.stdout).toContain('not one of the receipt keys given');
    expect(openReceiptKeys(next, []).listed.map((key) => key.status)).toEqual(['active']);
  });

  it('two processes ending the same execution at once store one end and one receipt: the row decides', async () => {
    const functionId = await deploy(
      'export default async () => { Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1500); return 1; };',
    );
    const executionId = (await call('POST', `/functions/${functionId}/invoke`, { async: true })).body.data!.execution
      .id as string;
    const orm = running.api.database.orm;
    const row = await orm.em.fork().findOneOrFail(Execution, { id: executionId });
    const ends = ['first', 'second'].map(async (process) => {
      const end = { ...row, status: executionStatus.failed, completedAt: new Date(), duration: 1 };
      end.error = { name: 'ExecutionLostError', message: process, stack: '' };
      const fields = receiptFields(sampleOf(executionId));
      const preimage = receiptPreimage({ ...fields, logsHash: createHash('sha256').update(process).digest() });
      const receipt = {
        keyId: activeKey.id,
        preimage,
        signature: signReceipt(activeKey, preimage),
        hostCalls: [],
        evidence: null,
      };
      return (await storeEnd(orm.em.fork(), executionId, end, undefined, receipt)) ? process : undefined;
    });
    const stored = (await Promise.all(ends)).filter(Boolean);
    expect(stored).toHaveLength(1);
    const receipts = await orm.em
      .fork()
      .getConnection()
      .execute<{ preimage: Buffer }[]>(`select preimage from execution_receipts where execution_id = ?`, [executionId]);
    expect(receipts).toHaveLength(1);
    expect(receiptFields(receipts[0]!.preimage).logsHash.toString('hex')).toBe(sha(stored[0]!));
    // The run itself, ending after, stores nothing more: still one receipt, the first end's.
    await running.api.services.temporal.client.workflow.getHandle(executionId).result();
    const after = await orm.em
      .fork()
      .getConnection()
      .execute<{ n: number }[]>(`select count(*)::int as n from execution_receipts where execution_id = ?`, [
        executionId,
      ]);
    expect(after[0]!.n).toBe(1);
  });
});

/** Some valid receipt fields for an execution, for the race above (what they claim does not matter there). */
function sampleOf(executionId: string) {
  const zero = Buffer.alloc(32);
  return receiptPreimage({
    networkMagic: 1,
    executionIdHash: createHash('sha256').update(executionId).digest(),
    functionIdHash: zero,
    codeHash: zero,
    configHash: zero,
    inputHash: zero,
    status: 'failed',
    outcomeHash: zero,
    logsHash: zero,
    secretsReadHash: zero,
    hostCallsHash: zero,
    startedAt: 0,
    completedAt: 0,
    publicKey: activeKey.publicKey,
    teeType: 0,
    evidenceHash: zero,
  });
}
