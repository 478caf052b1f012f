import { describe, expect, it, vi } from 'vitest';
import type { NeoRpc } from '../../src/chain/rpc.ts';
import type { FunctionFetch } from '../../src/functions/function-fetch.ts';
import { sandboxServices } from '../../src/functions/sandbox-services.ts';

const http = { fetch: vi.fn() } as unknown as FunctionFetch;

describe("a run's context.services.blockchain", () => {
  it('finds the nodes of its network only when the code reads the chain, and reads through them', async () => {
    const nodes = { getBlockCount: vi.fn(() => Promise.resolve(42)) } as unknown as NeoRpc;
    const find = vi.fn(() => Promise.resolve(nodes));
    const services = sandboxServices(find, http);
    expect(find).not.toHaveBeenCalled();
    expect(await services.blockchain.getBlockCount(AbortSignal.timeout(1_000))).toBe(42);
    expect(find).toHaveBeenCalledOnce();
  });

  it("fails the code's call with why its network cannot be found", async () => {
    const services = sandboxServices(() => Promise.reject(new Error('The network "gone" is not configured')), http);
    await expect(services.blockchain.getBlockCount(AbortSignal.timeout(1_000))).rejects.toThrow(/"gone"/);
  });
});
