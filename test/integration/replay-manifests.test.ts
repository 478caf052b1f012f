import { sc } from '@cityofzion/neon-js';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { createNeoRpc } from '../../src/chain/rpc.ts';
import { automationsClient, type Loose } from '../support/automations.ts';
import { callContract, compileContract, deployContract, fundedSender, updateContract } from '../support/contracts.ts';
import { issueKey } from '../support/keys.ts';
import { until } from '../support/polling.ts';
import { apiWithWorkerForThisFile } from '../support/worker.ts';

// A replay reads old notifications with the manifests their contracts have today: one updated since
// the blocks it reads (its event renamed here) would be decoded wrongly, so the replay refuses it.
const running = apiWithWorkerForThisFile();
const neo = () => createNeoRpc(inject('neoRpcUrl'));

let client: ReturnType<typeof automationsClient>;
beforeAll(async () => {
  client = automationsClient(running.api.url, (await issueKey(running.api.database.orm)).key);
});

/** Starts a dry run of [fromBlock, toBlock] and answers it once it ended. */
async function dryRun(id: string, fromBlock: number, toBlock: number): Promise<Loose> {
  const started = await client.call('POST', `/automations/${id}/replays`, { fromBlock, toBlock, dryRun: true });
  expect(started.status, JSON.stringify(started.body)).toBe(202);
  return until(
    async () => (await client.call('GET', `/automations/${id}/replays/${started.body.id as string}`)).body,
    (replay) => replay.status !== 'running',
    90_000,
  );
}

/** Says `text` through the announcer at `contract`: answers the blocks that hold it, as a replay range. */
async function say(contract: string, sender: Awaited<ReturnType<typeof fundedSender>>, text: string) {
  const fromBlock = await neo().getBlockCount();
  await callContract(neo(), sender, contract, 'say', [sc.ContractParam.string(text)]);
  return { fromBlock, toBlock: (await neo().getBlockCount()) - 1 };
}

describe('a replay of a contract updated since the blocks it reads', () => {
  it('fails with the reason instead of decoding them with today`s manifest; blocks after the update replay', async () => {
    const [announcer, renamed] = await Promise.all([
      compileContract(inject('neoGoPath'), 'announcer'),
      compileContract(inject('neoGoPath'), 'announcer', 'announcer-renamed'),
    ]);
    const deployer = await fundedSender(inject('neoRpcUrl'), inject('devWallet'), 50n);
    const contract = await deployContract(neo(), deployer, announcer);
    const functionId = await client.deploy('module.exports = async (context) => context.params.trigger.state;');
    const id = await client.create({
      name: 'announcements',
      status: 'inactive',
      trigger: { type: 'blockchain', scriptHash: contract, event: 'Said' },
      action: { type: 'function', functionId },
    });

    const before = await say(contract, deployer, 'before');
    const unchanged = await dryRun(id, before.fromBlock, before.toBlock);
    expect(unchanged).toMatchObject({ status: 'completed', matchCount: 1 });
    expect(unchanged.matches[0].state).toEqual({ text: 'before' });

    await updateContract(neo(), deployer, contract, renamed);
    const refused = await dryRun(id, before.fromBlock, before.toBlock);
    expect(refused).toMatchObject({
      status: 'failed',
      matchCount: 0,
      error: {
        name: 'ReplayFailed',
        message: expect.stringContaining(`The contract ${contract} was updated after block ${before.fromBlock - 1}`),
      },
    });

    const after = await say(contract, deployer, 'after');
    const since = await dryRun(id, after.fromBlock, after.toBlock);
    expect(since).toMatchObject({ status: 'completed', matchCount: 1 });
    expect(since.matches[0].state).toEqual({ words: 'after' });
  }, 240_000);
});
