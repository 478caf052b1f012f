import { setTimeout as sleep } from 'node:timers/promises';
import type { EntityManager } from '@mikro-orm/postgresql';
import { changedContracts, createEventAbiCache, readBlockNotifications } from '../chain/blocks.ts';
import type { NeoRpc } from '../chain/rpc.ts';
import { executeBound } from '../db/bound-statement.ts';
import { jsonbParam } from '../db/jsonb-param.ts';
import type { BlockchainTrigger } from './automations.schemas.ts';
import { firingsOfBlock, type Watcher } from './block-matching.ts';
import { noteRunEnd } from './notifications/run-end.ts';
import { recordRunsTold, type FiredRun, type Firing } from './runs.ts';
import { countRunsInFlight } from './run.sql.ts';

export interface ReplayDeps {
  em: EntityManager;
  neo: NeoRpc;
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
export const blocksPerPage = 100;
/** A page ends after the block read this long after it began: progress is committed this often at least. */
const pageMs = 2_000;
/** A page ends after the block that brings its runs to this many: their actions start in bounded batches. */
const runsPerPage = 50;
/** A dry run lists this many matches at most; it counts them all. */
export const maxListedMatches = 100;
/**
 * Live following comes first: while the follower is more blocks than this behind the chain, the
 * replay reads none (both read the same node).
 */
const followerLagAllowed = 2;
/** How long a replay waits before it looks again at the follower's lag or its account's runs. */
const waitMs = 2_000;

interface ReplayRow {
  automation_id: string;
  account_id: string;
  next_block: number;
  to_block: number;
  dry_run: boolean;
  listed_count: number;
  trigger: BlockchainTrigger;
}

/** A match as a dry run lists it. */
export interface ListedMatch {
  blockIndex: number;
  txHash: string | null;
  notificationIndex: number;
  state: unknown;
}

/**
 * One page of a replay: the blocks from its row's `next_block` on, matched with its automation's
 * current trigger by the follower's own matcher (`firingsOfBlock`), so each run is recorded under
 * the fire key the follower gives it: a cause already fired (by the follower, by an earlier or
 * overlapping replay) keeps its run and fires nothing new. The runs and the row's progress commit
 * together, from `next_block` only: a page repeated after a lost worker records nothing twice, and
 * a stale attempt fails instead of moving the row. A dry run records no run: it lists its matches.
 */
export async function replayPage(deps: ReplayDeps, replayId: string): Promise<ReplayStep> {
  const row = await readReplay(deps.em, replayId);
  if (!row) return { kind: 'done', runs: [] };
  if (await followerBehind(deps)) return { kind: 'wait', waitMs, runs: [] };
  if (!row.dry_run && (await countRunsInFlight(deps.em, row.account_id)) >= deps.queuedRunsPerAccount) {
    return { kind: 'wait', waitMs, runs: [] };
  }
  const watcher: Watcher = {
    id: row.automation_id,
    account: { id: row.account_id },
    trigger: row.trigger,
    watchFromBlock: 0,
  };
  const abi = createEventAbiCache(deps.neo);
  const firings: Firing[] = [];
  const began = Date.now();
  let last = Math.min(row.to_block, row.next_block + blocksPerPage - 1);
  for (let index = row.next_block; index <= last; index++) {
    const early = began + ((index - row.next_block) * 1000) / deps.blocksPerSecond - Date.now();
    if (early > 0) await sleep(early);
    const block = await readBlockNotifications(deps.neo, index);
    for (const contract of changedContracts(block)) abi.forget(contract);
    firings.push(...(await firingsOfBlock(block, [watcher], abi)));
    deps.beat();
    if (firings.length >= runsPerPage || Date.now() - began >= pageMs) last = index;
  }
  const done = last >= row.to_block;
  const runs = await deps.em.transactional(async (em) => {
    const fresh = row.dry_run ? [] : await recordFresh(em, firings);
    const listed = row.dry_run ? firings.slice(0, Math.max(0, maxListedMatches - row.listed_count)).map(listedOf) : [];
    await advanceReplay(em, replayId, row.next_block, {
      next: last + 1,
      done,
      matches: firings.length,
      runsStarted: fresh.length,
      listed,
    });
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
  const fresh: FiredRun[] = [];
  for (const [index, { run, recorded: isNew }] of recorded.entries()) {
    if (!isNew) continue;
    if (firings[index]!.error) await noteRunEnd(em, run.runId);
    fresh.push(run);
  }
  return fresh;
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

const readSql = `select r."automation_id", r."account_id", r."next_block", r."to_block", r."dry_run",
  jsonb_array_length(r."listed") as "listed_count", a."trigger"
from "automation_replays" r join "automations" a on a."id" = r."automation_id"
where r."id" = ? and r."status" = 'running'`;

/** The replay while it runs, with its automation's trigger as it is now; null once it ended or was deleted. */
async function readReplay(em: EntityManager, replayId: string): Promise<ReplayRow | null> {
  const [row] = await em.execute<ReplayRow[]>(readSql, [replayId]);
  return row ?? null;
}

const advanceSql = `update "automation_replays" set "next_block" = ?, "matches" = "matches" + ?,
  "runs_started" = "runs_started" + ?, "listed" = "listed" || ?::jsonb, "updated_at" = now(),
  "status" = case when ? then 'completed' else "status" end,
  "completed_at" = case when ? then now() else "completed_at" end
where "id" = ? and "next_block" = ? and "status" = 'running'`;

interface Progress {
  next: number;
  done: boolean;
  matches: number;
  runsStarted: number;
  listed: ListedMatch[];
}

async function advanceReplay(em: EntityManager, replayId: string, from: number, progress: Progress) {
  const { next, done, matches, runsStarted, listed } = progress;
  const params = [next, matches, runsStarted, jsonbParam(listed), done, done, replayId, from];
  // A dry run's matches carry what the chain emitted: sent bound (bound-statement.ts).
  const result = await executeBound(em, advanceSql, params);
  if (result.affectedRows !== 1) throw new Error(`block ${from} of replay ${replayId} was already replayed`);
}

/**
 * Whether the network's follower is behind the chain by more than a replay may let it be. Only a
 * follower whose cursor moved lately counts: one not running (no automation watches) or stalled
 * (its own alerts tell) holds no replay back for ever.
 */
async function followerBehind(deps: ReplayDeps): Promise<boolean> {
  const [cursor] = await deps.em.execute<{ next: number | null }[]>(
    `select max("next_index") as "next" from "block_cursors" where "updated_at" > now() - interval '30 seconds'`,
  );
  if (cursor?.next == null) return false;
  return (await deps.neo.getBlockCount()) - cursor.next > followerLagAllowed;
}

const failSql = `update "automation_replays" set "status" = 'failed', "error" = ?, "completed_at" = now(),
  "updated_at" = now() where "id" = ? and "status" = 'running'`;

/** Ends a replay that cannot go on, with why; one that already ended keeps its outcome. */
export async function failReplay(em: EntityManager, replayId: string, message: string) {
  await em.execute(failSql, [jsonbParam({ name: 'ReplayFailed', message }), replayId], 'run');
}
