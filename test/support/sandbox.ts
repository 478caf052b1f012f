import { runInSandbox } from '../../src/sandbox/sandbox.ts';
import { type SandboxOutcome, type SandboxRequest, type SandboxServices } from '../../src/sandbox/types.ts';

/** Fake chain services: fixed answers, and a record of the calls the sandbox made. */
export function fakeServices(calls: unknown[][] = []): SandboxServices {
  return {
    blockchain: {
      getBalance: async (address, asset) => {
        calls.push(['getBalance', address, asset]);
        if (address === 'bad') throw new Error('invalid address');
        return { asset, amount: '100000000', decimals: 8 };
      },
      getBlockCount: async () => 4242,
      invokeRead: async (scriptHash, operation, args) => ({ state: 'HALT', scriptHash, operation, args }),
    },
    http: {
      fetch: async (url, init) => {
        calls.push(['fetch', url, init]);
        return { status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ url }) };
      },
    },
  };
}

export function sandboxRequest(code: string, overrides: Partial<SandboxRequest> = {}): SandboxRequest {
  return {
    code,
    params: {},
    execution: { id: 'exec_test0000000000000000', startedAt: '2026-11-22T01:00:00.000Z', functionId: 'func_test' },
    environment: {},
    secrets: [],
    services: fakeServices(),
    timeoutMs: 5_000,
    memoryLimitMb: 128,
    maxServiceCalls: 1000,
    ...overrides,
  };
}

export function run(code: string, overrides: Partial<SandboxRequest> = {}): Promise<SandboxOutcome> {
  return runInSandbox(sandboxRequest(code, overrides));
}

/** The result of a run expected to complete; fails the test with the error otherwise. */
export async function resultOf(code: string, overrides: Partial<SandboxRequest> = {}): Promise<unknown> {
  const outcome = await run(code, overrides);
  if (outcome.status !== 'completed') throw new Error(`expected completion, got ${JSON.stringify(outcome.error)}`);
  return outcome.result;
}
