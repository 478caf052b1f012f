import { setTimeout as sleep } from 'node:timers/promises';
import type { EntityManager } from '@mikro-orm/postgresql';
import { readBlockNotifications } from '../chain/blocks.ts';
import type { NeoRpc } from '../chain/rpc.ts';
import { advanceCursor, readCursor } from './block-cursor.ts';
import { firingsOfBlock, type EventAbi, type Watcher } from './block-matching.ts';
import type { UndeployedContracts } from './undeployed-contracts.ts';
import type { BlockchainTrigger } from './automations.schemas.ts';
import { followerLag } from '../metrics/metrics.ts';
import { recordRuns, type FiredRun } from './runs.ts';

export interface FollowDeps {
  em: EntityManager;
  neo: NeoRpc;
  abi: EventAbi;
  /** Moves the automations whose contract is not deployed to `error`. */
  contracts: UndeployedContracts;
  /** Called while waiting and after each block, so that a lost worker is noticed. */
  beat: () => void;
}

/** A round reads at most this many blocks, so that actions start while catching up. */
const maxBlocksPerRound = 20;
/** How often the chain's height is asked for: the bound on how late a new block is seen. */
const pollMs = 200;
/** A round that sees no new block ends after this, giving the workflow a turn. */
const idleRoundMs = 5_000;

/**
 * One round of the follower of `network`: waits for blocks past the cursor, then for each block
 * records the runs it fires and moves the cursor past it in one transaction. A crash between two
 * blocks loses nothing and repeats nothing. Returns the runs to start; a run recorded by a round
 * whose worker died before starting it is started by the recovery sweep.
 */
export async function followRound(deps: FollowDeps, network: string): Promise<FiredRun[]> {
  const next = await readCursor(deps.em, network, () => deps.neo.getBlockCount());
  const height = await waitForBlock(deps, next);
  const last = Math.min(height, next + maxBlocksPerRound);
  const fired: FiredRun[] = [];
  const watchers = await activeWatchers(deps.em);
  await deps.contracts.check(deps.em, watchers);
  if (last > next) {
    for (let index = next; index < last; index++) {
      const block = await readBlockNotifications(deps.neo, index);
      const firings = await firingsOfBlock(block, watchers, deps.abi);
      await deps.em.transactional(async (em) => {
        fired.push(...(await recordRuns(em, firings)));
        await advanceCursor(em, network, index);
      });
      deps.beat();
    }
  }
  followerLag.set({ network }, Math.max(0, height - last));
  return fired;
}

/**
 * Plain rows, not entities: read once a round, for every block, and only read. (Hydrating 1,000
 * entities a second was most of the follower's CPU.)
 */
async function activeWatchers(em: EntityManager): Promise<Watcher[]> {
  const rows = await em.execute<
    { id: string; account_id: string; trigger: BlockchainTrigger; watch_from_block: number | null }[]
  >(
    `select "id", "account_id", "trigger", "watch_from_block" from "automations"
      where "status" = 'active' and "trigger_type" = 'blockchain' and "watch_from_block" is not null`,
  );
  return rows.map((row) => ({
    id: row.id,
    account: { id: row.account_id },
    trigger: row.trigger,
    watchFromBlock: row.watch_from_block!,
  }));
}

/** The chain's block count once it exceeds `next`, or as it is when the round's wait ends. */
async function waitForBlock(deps: FollowDeps, next: number): Promise<number> {
  const deadline = Date.now() + idleRoundMs;
  for (;;) {
    const count = await deps.neo.getBlockCount();
    if (count > next || Date.now() >= deadline) return count;
    deps.beat();
    await sleep(pollMs);
  }
}
