import { execFile } from 'node:child_process';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { isPortFree } from '../../src/net/ports.ts';
import { receiptKeyOf } from '../../src/receipts/receipt-key.ts';
import { stackEnv } from '../setup/stack.ts';
import { createKeyWithCli } from '../support/cli.ts';
import { scratchDataDir } from '../support/scratch-services.ts';
import { startNeoflowUp, type UpProcess } from '../support/up.ts';

const run = promisify(execFile);
let dataDir: string;
let running: UpProcess | undefined;

afterAll(async () => {
  await running?.stop();
  await rm(dataDir, { recursive: true, force: true });
});

/** Processes whose command line names the data directory: everything `up` started. */
async function processesUsing(dir: string): Promise<string[]> {
  const { stdout } = await run('ps', ['-eo', 'pid=,args=']);
  return stdout.split('\n').filter((line) => line.includes(dir) && !line.includes('ps -eo'));
}

const blockHeight = async (apiUrl: string) =>
  ((await (await fetch(`${apiUrl}/v1/health`)).json()) as { neo: { blockHeight: number } }).neo.blockHeight;

describe('neoflow up, Ctrl-C, and up again', () => {
  it('stops everything within 10 s, leaves no process behind, and reuses the data', async () => {
    dataDir = await scratchDataDir('neoflow-lifecycle-');
    const env = await stackEnv(dataDir);
    const apiUrl = `http://127.0.0.1:${env.NEOFLOW_API_PORT}`;

    running = await startNeoflowUp(env);
    expect(running.output()).toMatch(/postgres\s+ok/);
    const key = await createKeyWithCli(env, 'lifecycle');
    const heightBefore = await blockHeight(apiUrl);
    // A run in progress when Ctrl-C comes: the worker drains it while Temporal and PostgreSQL still serve.
    const call = (method: string, path: string, body?: unknown) =>
      fetch(`${apiUrl}/v1${path}`, {
        method,
        headers: { 'X-API-Key': key, 'Content-Type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      }).then(async (response) => (await response.json()) as { data: Record<string, any> });
    const busy =
      'module.exports = async () => { const end = Date.now() + 2000; while (Date.now() < end) { await null; } return "drained"; };';
    const fn = (await call('POST', '/functions', { name: 'draining', runtime: 'node18', code: busy })).data
      .id as string;
    const execution = (await call('POST', `/functions/${fn}/invoke`, { async: true })).data.execution.id as string;

    const beforeStop = running.output().length;
    const stopped = await running.stop();
    const stopping = running.output().slice(beforeStop);
    running = undefined;
    expect(stopped.code).toBe(0);
    // The API and worker drain before the services they report to stop: nothing retries against
    // a Temporal server, database or node that is already gone.
    expect(stopping).not.toMatch(/transport error|connection refused|ECONNREFUSED|Unavailable|failed to poll/i);
    expect(stopped.ms).toBeLessThan(10_000);
    expect(await processesUsing(dataDir)).toEqual([]);
    const ports = Object.entries(env).filter(([name]) => name.endsWith('_PORT'));
    for (const [, port] of ports) expect(await isPortFree(Number(port))).toBe(true);

    running = await startNeoflowUp(env);
    const account = await fetch(`${apiUrl}/v1/account`, { headers: { 'X-API-Key': key } });
    expect(account.status).toBe(200);
    // It ended while the stack stopped, once, with its result.
    expect((await call('GET', `/functions/${fn}/executions/${execution}`)).data).toMatchObject({
      status: 'completed',
      result: 'drained',
    });
    expect(await blockHeight(apiUrl)).toBeGreaterThanOrEqual(heightBefore);
    // Signed out of the box, by the receipt key `up` made with its other dev secrets and kept across the restart.
    const secrets = JSON.parse(await readFile(join(env.NEOFLOW_DATA_DIR!, 'dev-secrets.json'), 'utf8')) as {
      NEOFLOW_RECEIPT_KEY: string;
    };
    const receiptKey = receiptKeyOf(secrets.NEOFLOW_RECEIPT_KEY);
    const keys = (await (await fetch(`${apiUrl}/v1/receipt-keys`)).json()) as { data: unknown };
    expect(keys.data).toEqual([
      { id: receiptKey.id, publicKey: receiptKey.publicKey.toString('hex'), status: 'active' },
    ]);
    expect((await call('GET', `/functions/${fn}/executions/${execution}/receipt`)).data).toMatchObject({
      status: 'completed',
      claim: 'signed',
      keyId: receiptKey.id,
    });
  }, 240_000);
});
