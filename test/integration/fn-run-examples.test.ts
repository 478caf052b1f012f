import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { gasHash, gasTransferCall } from '../support/automations.ts';
import { neoflow } from '../support/cli.ts';

interface Example {
  code: string;
  /** The block's language: a `ts` one runs from a `.ts` file, as runtime typescript. */
  language: 'js' | 'ts';
  /** `--timeout`, in seconds. */
  timeout?: number;
  params?: Record<string, unknown>;
  env?: Record<string, string>;
  secrets?: Record<string, string>;
  /** `--execute`: the result is read as a sending action's decision, printed as `decision`. */
  execute?: Record<string, unknown>;
  /** `--signer`: whose signature the decided calls' test invocation assumes. */
  signer?: string;
  /** `--allow-host`: the function's allowedHosts. */
  allowHosts?: string[];
  /** `--storage`: the file the run's store is seeded from, and written back to. */
  storage?: Record<string, unknown>;
  expect: {
    status: 'completed' | 'failed';
    result?: unknown;
    errorName?: string;
    log?: string;
    decision?: object;
    /** The storage file once the run ended. */
    stored?: Record<string, unknown>;
  };
}

/** Every `<!-- example: … -->` of docs/functions.md with the js or ts block that follows it. */
async function examples(): Promise<Example[]> {
  const page = await readFile(new URL('../../docs/functions.md', import.meta.url), 'utf8');
  return [...page.matchAll(/<!-- example: (.*?) -->\s*```(js|ts)\n([\s\S]*?)```/g)].map(([, spec, language, code]) => ({
    ...(JSON.parse(spec!) as Omit<Example, 'code' | 'language'>),
    language: language as Example['language'],
    code: code!,
  }));
}

let dir: string;
/** `$ORIGIN` of the examples: an HTTP API on loopback answering `/price?pair=…` with a quote. */
let origin: Server;
let originUrl: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'neoflow-fn-run-'));
  origin = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://origin');
    if (url.pathname !== '/price') return void response.writeHead(404).end();
    response.setHeader('content-type', 'application/json');
    response.end(JSON.stringify({ pair: url.searchParams.get('pair'), price: 12.5 }));
  });
  await new Promise<void>((listening) => origin.listen(0, '127.0.0.1', listening));
  originUrl = `http://127.0.0.1:${(origin.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((closed) => origin.close(closed));
  await rm(dir, { recursive: true, force: true });
});

/** As the test stack runs: loopback allowed to tenants' requests, where the examples' origin is. */
async function fnRun(file: string, flags: string[]) {
  return neoflow(['fn', 'run', file, '--rpc', inject('neoRpcUrl'), ...flags], { NEOFLOW_EGRESS_ALLOW: '127.0.0.1' });
}

const found = await examples();

describe('docs/functions.md, run by `neoflow fn run` as written', () => {
  it('has an example for each thing a function author reaches for', () => {
    const code = found.map((example) => example.code).join('\n');
    const used = [
      'getBalance',
      'invokeRead',
      'secrets.get',
      'context.log',
      'random.uuid',
      'throw new',
      'canExec',
      'skip:',
      'http.fetch',
      'interface ',
      'setTimeout',
      'new URL',
      'TextEncoder',
      'structuredClone',
      'crypto.randomUUID',
      'btoa',
      'storage.getEntry',
    ];
    for (const call of used) expect(code).toContain(call);
  });

  it.each(found.map((example, index) => [index + 1, example] as const))('example %i', async (index, example) => {
    const file = join(dir, `example-${index}.${example.language}`);
    await writeFile(file, example.code);
    const dev = (text: string) =>
      text.replaceAll('$DEV_WALLET_ADDRESS', inject('devWallet').address).replaceAll('$ORIGIN', originUrl);
    const storageFile = join(dir, `example-${index}.storage.json`);
    if (example.storage) await writeFile(storageFile, JSON.stringify(example.storage));
    const flags = [
      ...(example.timeout === undefined ? [] : ['--timeout', String(example.timeout)]),
      ...(example.storage ? ['--storage', storageFile] : []),
      '--params',
      dev(JSON.stringify(example.params ?? {})),
      ...(example.execute ? ['--execute', JSON.stringify(example.execute)] : []),
      ...(example.signer ? ['--signer', dev(example.signer)] : []),
      ...Object.entries(example.env ?? {}).flatMap(([name, value]) => ['--env', `${name}=${value}`]),
      ...Object.entries(example.secrets ?? {}).flatMap(([name, value]) => ['--secret', `${name}=${value}`]),
      ...(example.allowHosts ?? []).flatMap((host) => ['--allow-host', host]),
    ];
    const { code, stdout, stderr } = await fnRun(file, flags);
    expect(stderr).toBe('');
    const outcome = JSON.parse(stdout) as Record<string, any>;
    expect(outcome.status).toBe(example.expect.status);
    expect(code).toBe(example.expect.status === 'completed' ? 0 : 1);
    expect(outcome.durationMs).toEqual(expect.any(Number));
    if (example.expect.result !== undefined) expect(outcome.result).toMatchObject(example.expect.result as object);
    if (example.expect.decision) expect(outcome.decision).toMatchObject(example.expect.decision);
    if (example.expect.errorName) expect(outcome.error.name).toBe(example.expect.errorName);
    if (example.expect.log)
      expect(outcome.logs.map((line: { message: string }) => line.message)).toContain(example.expect.log);
    for (const value of Object.values(example.secrets ?? {})) expect(JSON.stringify(outcome.logs)).not.toContain(value);
    if (example.expect.stored)
      expect(JSON.parse(await readFile(storageFile, 'utf8'))).toMatchObject(example.expect.stored);
  });
});

describe('neoflow fn run', () => {
  it('--storage: seeds the store from the file, writes it back when the run completes, never when it fails', async () => {
    const file = join(dir, 'counter.js');
    await writeFile(
      file,
      `module.exports = async ({ storage, params }) => {
        const { value = 0, version } = await storage.getEntry('n');
        await storage.set('n', value + 1, { ifVersion: version });
        await storage.delete('old');
        if (params.fail) throw new Error('after set');
        return value + 1;
      };`,
    );
    const store = join(dir, 'counter.storage.json');
    await writeFile(store, JSON.stringify({ n: 41, old: true, kept: 'yes' }));
    const ran = await fnRun(file, ['--storage', store]);
    expect(ran.code, ran.stderr).toBe(0);
    expect(JSON.parse(ran.stdout)).toMatchObject({ result: 42, storage: { read: ['n'], written: ['n', 'old'] } });
    expect(JSON.parse(await readFile(store, 'utf8'))).toEqual({ kept: 'yes', n: 42 });
    const failed = await fnRun(file, ['--storage', store, '--params', '{"fail":true}']);
    expect(failed.code).toBe(1);
    expect(JSON.parse(await readFile(store, 'utf8'))).toEqual({ kept: 'yes', n: 42 });
    // A file not there yet is an empty store, made by the first run that writes.
    const fresh = join(dir, 'fresh.storage.json');
    expect((await fnRun(file, ['--storage', fresh])).code).toBe(0);
    expect(JSON.parse(await readFile(fresh, 'utf8'))).toEqual({ n: 1 });
  });

  it('stops a run at its timeout with TimeoutError and exit code 1, and refuses code with no entry point', async () => {
    const spinning = join(dir, 'spin.js');
    await writeFile(spinning, 'module.exports = async () => { for (;;); };');
    const stopped = await fnRun(spinning, ['--timeout', '1']);
    expect(stopped.code).toBe(1);
    expect(JSON.parse(stopped.stdout).error).toMatchObject({ name: 'TimeoutError' });

    const entryless = join(dir, 'entryless.js');
    await writeFile(entryless, 'const x = 1;');
    const refused = await fnRun(entryless, []);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^neoflow: Define the function as module\.exports/);
  });

  describe('--execute: the decision of a function action that sends, sending nothing', () => {
    const gas = gasHash;
    const execute = ['--execute', JSON.stringify({ allowedContracts: [gas], maxCalls: 1 })];
    /** A function returning `params.decision`, run with `flags`. */
    const decide = async (decision: unknown, flags: string[] = []) => {
      const file = join(dir, 'decide.js');
      await writeFile(file, 'module.exports = async (context) => context.params.decision;');
      const ran = await fnRun(file, ['--params', JSON.stringify({ decision }), ...execute, ...flags]);
      return { ...ran, outcome: ran.stdout ? (JSON.parse(ran.stdout) as Record<string, any>) : null };
    };
    const transfer = (from: string, amount: string) =>
      gasTransferCall(from, 'NM5hhjmY4gET7NLEkHDSPMr2BYA1Rbo2VW', amount);

    it('prints the calls and their test invocation as --signer; a call that faults exits with code 1', async () => {
      const signer = inject('devWallet').address;
      const signed = await decide({ calls: [transfer(signer, '1')] }, ['--signer', signer]);
      expect(signed.code).toBe(0);
      expect(signed.outcome!.decision).toEqual({
        calls: [transfer(signer, '1')],
        testInvocation: { vmState: 'HALT', gasConsumed: expect.stringMatching(/^\d+$/), exception: null },
      });
      const faulting = await decide({ calls: [{ ...transfer(signer, '1'), operation: 'nope' }] }, ['--signer', signer]);
      expect(faulting.code).toBe(1);
      expect(faulting.outcome!.decision.testInvocation).toMatchObject({
        vmState: 'FAULT',
        exception: expect.stringContaining('nope'),
      });
    });

    it('prints a skip, and an invalid decision with InvalidDecision and exit code 1', async () => {
      const skipped = await decide({ canExec: false, message: 'Time not elapsed' });
      expect(skipped.code).toBe(0);
      expect(skipped.outcome!.decision).toEqual({ skipped: 'Time not elapsed' });
      const signer = inject('devWallet').address;
      const tooMany = await decide({ calls: [transfer(signer, '1'), transfer(signer, '2')] });
      expect(tooMany.code).toBe(1);
      expect(tooMany.outcome!.decision).toEqual({
        error: { name: 'InvalidDecision', message: expect.stringContaining("more than the action's maxCalls (1)") },
      });
    });

    it('resolves templates against the trigger in --params, failing with TemplateError where it lacks the path', async () => {
      const signer = inject('devWallet').address;
      const templated = transfer(signer, '{{trigger.state.amount}}');
      const file = join(dir, 'templated.js');
      await writeFile(file, 'module.exports = async (context) => context.params.decision;');
      const trigger = { type: 'blockchain', eventName: 'Transfer', state: { amount: 7 } };
      const resolved = await fnRun(file, [
        '--params',
        JSON.stringify({ decision: { calls: [templated] }, trigger }),
        ...execute,
      ]);
      expect(resolved.code).toBe(0);
      expect(JSON.parse(resolved.stdout).decision).toMatchObject({ calls: [transfer(signer, '7')] });
      const missing = await decide({ calls: [templated] });
      expect(missing.code).toBe(1);
      expect(missing.outcome!.decision.error).toMatchObject({ name: 'TemplateError' });
    });

    it('refuses an --execute the action would refuse, naming the field', async () => {
      const refused = await decide({ skip: 'x' }, ['--execute', JSON.stringify({ allowedContracts: [] })]);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/^neoflow: --execute allowedContracts must name at least one contract/);
    });
  });
});
