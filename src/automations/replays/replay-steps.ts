import { setTimeout as sleep } from 'node:timers/promises';
import type { EntityManager } from '@mikro-orm/postgresql';
import { changedContracts, createEventAbiCache, readBlockNotifications } from '../../chain/blocks.ts';
import type { NeoRpc } from '../../chain/rpc.ts';
import { networkOf, type NetworkNodes } from '../../chain/network-of.ts';
import { firingsOfBlock, type Watcher } from '../blocks/block-matching.ts';
import { noteRunEnds } from '../notifications/run-end.ts';
import { recordRunsTold, type FiredRun, type Firing } from '../runs/fires.ts';
import { countRunsInFlight } from '../runs/run.sql.ts';
import { movingCursorIndex } from '../blocks/block-cursor.sql.ts';
import { advanceReplayRow, readRunningReplay, type ListedMatch } from './replay.sql.ts';
import { assertManifestsUnchanged } from './replay-manifests.ts';

interface ReplayDeps {
  em: EntityManager;
  /** Every configured network: a replay reads its automation's. */
  networks: NetworkNodes;
  /** Called after each block read, so that a lost worker is noticed. */
  beat: () => void;
  /** NEOFLOW_ACCOUNT_QUEUED_EXECUTIONS: the account's runs not yet ended past which a replay waits. */
  queuedRunsPerAccount: number;
  /** NEOFLOW_REPLAY_BLOCKS_PER_SECOND: the pace of the reads. */
  blocksPerSecond: number;
}

/** What the replay's workflow does after a page: start the runs' actions, then go on, wait, or end. */
export type ReplayStep =
  | { kind: 'more'; runs: FiredRun[] }
  | { kind: 'wait'; waitMs: number; runs: FiredRun[] }
  | { kind: 'done'; runs: FiredRun[] };

/** A page reads at most this many blocks: one activity, heartbeating, committed as one. */
const blocksPerPage = 100;
/** A page ends after the block read this long after it began: progress is committed this often at least. */
const pageMs = 2_000;
/** A page ends after the block that brings its runs to this many: their actions start in bounded batches. */
const runsPerPage = 50;
/** A dry run lists this many matches at most; it counts them all. */
export const maxListedMatches = 100;
/**
 * Live following comes first: while the follower is more blocks than this behind the chain, the
 * replay reads none (both read the same node). One: the block just made, which the follower reads
 * next; at two, an account's replays kept the follower two blocks behind for every account.
 */
const followerLagAllowed = 1;
/** How long a replay waits before it looks again at the follower's lag or its account's runs. */
const waitMs = 2_000;

/**
 * One page of a replay: the blocks from its row's `next_block` on, matched with its automation's
 * current trigger by the follower's own matcher (`firingsOfBlock`), so each run is recorded under
 * the fire key the follower gives it: a cause already fired (by the follower, by an earlier or
 * overlapping replay) keeps its run and fires nothing new. The runs and the row's progress commit
 * together, from `next_block` only: a page repeated after a lost worker records nothing twice, and
 * a stale attempt fails instead of moving the row. A dry run records no run: it lists its matches.
 */
export async function replayPage(deps: ReplayDeps, replayId: string): Promise<ReplayStep> {
  const row = await readRunningReplay(deps.em, replayId);
  if (!row) return { kind: 'done', runs: [] };
  const neo = networkOf(deps.networks, row.network);
  if (await followerBehind(deps.em, neo)) return { kind: 'wait', waitMs, runs: [] };
  // A dry run records no run, but it reads the same node and holds the same slots: it waits too.
  if ((await countRunsInFlight(deps.em, row.account_id)) >= deps.queuedRunsPerAccount) {
    return { kind: 'wait', waitMs, runs: [] };
  }
  await assertManifestsUnchanged(neo, row.trigger, row.next_block);
  const watcher: Watcher = {
    id: row.automation_id,
    account: { id: row.account_id },
    trigger: row.trigger,
    watchFromBlock: 0,
  };
  const abi = createEventAbiCache(neo);
  const firings: Firing[] = [];
  const began = Date.now();
  let last = Math.min(row.to_block, row.next_block + blocksPerPage - 1);
  for (let index = row.next_block; index <= last; index++) {
    const early = began + ((index - row.next_block) * 1000) / deps.blocksPerSecond - Date.now();
    if (early > 0) await sleep(early);
    const block = await readBlockNotifications(neo, index);
    for (const contract of changedContracts(block)) abi.forget(contract);
    firings.push(...(await firingsOfBlock(block, [watcher], abi)));
    deps.beat();
    if (firings.length >= runsPerPage || Date.now() - began >= pageMs) last = index;
  }
  const done = last >= row.to_block;
  const runs = await deps.em.transactional(async (em) => {
    const fresh = row.dry_run ? [] : await recordFresh(em, firings);
    const listed = row.dry_run ? firings.slice(0, Math.max(0, maxListedMatches - row.listed_count)).map(listedOf) : [];
    const progress = { next: last + 1, done, matches: firings.length, runsStarted: fresh.length, listed };
    if (!(await advanceReplayRow(em, replayId, row.next_block, progress))) {
      throw new Error(`block ${row.next_block} of replay ${replayId} was already replayed`);
    }
    return fresh;
  });
  return { kind: done ? 'done' : 'more', runs };
}

/**
 * The runs this page recorded first, as the follower records them: a quarantined one's failure is
 * noted in the same transaction, and its action started too, which tells it at once.
 */
async function recordFresh(em: EntityManager, firings: Firing[]): Promise<FiredRun[]> {
  const recorded = await recordRunsTold(em, firings);
  const quarantined = recorded.filter((told, index) => told.recorded && firings[index]!.error);
  await noteRunEnds(
    em,
    quarantined.map((told) => told.run.runId),
  );
  return recorded.filter((told) => told.recorded).map((told) => told.run);
}

const listedOf = (firing: Firing): ListedMatch => {
  const payload = firing.payload as Extract<Firing['payload'], { type: 'blockchain' }>;
  return {
    blockIndex: payload.blockIndex,
    txHash: payload.txHash,
    notificationIndex: payload.notificationIndex,
    state: payload.state,
  };
};

/**
 * Whether the follower of the replay's network (`neo`) is behind its chain by more than a replay
 * may let it be. Only a follower whose cursor moved lately counts: one not running (no automation
 * watches) or stalled (its own alerts tell) holds no replay back for ever.
 */
async function followerBehind(em: EntityManager, neo: NeoRpc): Promise<boolean> {
  const next = await movingCursorIndex(em, String(await neo.getNetworkMagic()));
  if (next === null) return false;
  return (await neo.getBlockCount()) - next > followerLagAllowed;
}
