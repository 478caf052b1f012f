import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { wallet } from '@cityofzion/neon-js';
import { describe, expect, it } from 'vitest';
import { createNeoRpc } from '../../src/chain/rpc.ts';
import type { SandboxOutcome, SandboxServices } from '../../src/sandbox/types.ts';
import { fakeServices, run } from '../support/sandbox.ts';
import { closeServer } from '../support/close-server.ts';

const failed = (outcome: SandboxOutcome) => {
  if (outcome.status !== 'failed') throw new Error(`expected a failure, got ${JSON.stringify(outcome)}`);
  return outcome.error;
};

/** Services whose getBlockCount never answers, and that record the runs' signals. */
function hangingServices(signals: AbortSignal[]): SandboxServices {
  const services = fakeServices();
  services.blockchain.getBlockCount = (signal) => {
    signals.push(signal);
    return new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(new Error('aborted'))));
  };
  return services;
}

describe('a quota of service calls per run', () => {
  it.each([
    ['blockchain', 'await services.blockchain.getBlockCount()'],
    ['random', 'services.random.uuid()'],
  ])('fails a run making more %s calls than its quota with ServiceQuotaError', async (_kind, call) => {
    let served = 0;
    const services = fakeServices();
    services.blockchain.getBlockCount = async () => ++served;
    const code = `module.exports = async ({ services }) => { for (let i = 0; i < 1000; i++) ${call}; };`;
    const error = failed(await run(code, { services, maxServiceCalls: 999 }));
    expect(error).toMatchObject({
      name: 'ServiceQuotaError',
      message: expect.stringContaining('This run made its 999 calls to context.services'),
    });
    if (_kind === 'blockchain') expect(served).toBe(999);
  });

  it('keeps refusing once the quota is spent, even when the code catches, and counts random and blockchain together', async () => {
    let served = 0;
    const services = fakeServices();
    services.blockchain.getBlockCount = async () => ++served;
    const code = `module.exports = async ({ services }) => {
      services.random.uuid();
      await services.blockchain.getBlockCount();
      const refused = [];
      for (let i = 0; i < 3; i++) {
        try { await services.blockchain.getBlockCount(); } catch (error) { refused.push(error.name); }
      }
      return refused;
    };`;
    const outcome = await run(code, { services, maxServiceCalls: 2 });
    expect(outcome).toMatchObject({ status: 'completed', result: Array(3).fill('ServiceQuotaError') });
    expect(served).toBe(1);
  });

  it('does not count reads of granted secrets', async () => {
    const code = `module.exports = async ({ secrets }) => { for (let i = 0; i < 10; i++) secrets.TOKEN; return 'read'; };`;
    const outcome = await run(code, { secrets: [{ name: 'TOKEN', value: 'abcdef' }], maxServiceCalls: 1 });
    expect(outcome).toMatchObject({ status: 'completed', result: 'read' });
  });
});

describe('service calls in flight stop with the run', () => {
  it('aborts a call in flight when the run times out', async () => {
    const signals: AbortSignal[] = [];
    const outcome = await run(`module.exports = async ({ services }) => services.blockchain.getBlockCount();`, {
      services: hangingServices(signals),
      timeoutMs: 300,
    });
    expect(failed(outcome).name).toBe('TimeoutError');
    expect(signals).toHaveLength(1);
    expect(signals[0]!.aborted).toBe(true);
  });

  it('aborts calls the code started and never awaited when the run returns', async () => {
    const signals: AbortSignal[] = [];
    const code = `module.exports = async ({ services }) => {
      services.blockchain.getBlockCount().catch(() => {});
      services.blockchain.getBlockCount().catch(() => {});
      return 'returned';
    };`;
    const outcome = await run(code, { services: hangingServices(signals) });
    expect(outcome).toMatchObject({ status: 'completed', result: 'returned' });
    expect(signals.map((signal) => signal.aborted)).toEqual([true, true]);
  });

  it('passes the signal through to the RPC request, which the node sees closed', async () => {
    const requests: IncomingMessage[] = [];
    const server = createServer((request) => void requests.push(request));
    await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
    try {
      const { port } = server.address() as AddressInfo;
      const neo = createNeoRpc(`http://127.0.0.1:${port}`, { timeoutMs: 60_000 });
      const ended = new AbortController();
      const calls = [
        neo.getBlockCount(ended.signal),
        neo.getBalance(new wallet.Account().address, 'GAS', ended.signal),
        neo.invokeFunction(`0x${'a'.repeat(40)}`, 'symbol', [], ended.signal),
      ].map((call) =>
        call.then(
          () => 'answered',
          (error: Error) => error.name,
        ),
      );
      while (requests.length < 3) await new Promise((turn) => setImmediate(turn));
      const closed = requests.map((request) => new Promise((done) => request.socket.once('close', done)));
      ended.abort();
      expect(await Promise.all(calls)).toEqual(['AbortError', 'AbortError', 'AbortError']);
      await Promise.all(closed);
    } finally {
      await closeServer(server);
    }
  });
});
