/**
 * blocks/: blockchain, transaction and state triggers, served by one follower per network
 * (follower.control.ts starts it). A round here reads the next block (block-cursor.ts), matches it
 * against the watchers (watcher-index.ts, block-matching.ts, condition by condition in match.ts),
 * reads state triggers at the head (state-trigger-follow.ts) and records the runs with the cursor;
 * an input that fails one automation is quarantined for it (quarantine.ts). The `/test` route's
 * answer (trigger-test.ts) asks the same matcher.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { EntityManager } from '@mikro-orm/postgresql';
import { changedContracts, readBlockNotifications } from '../../chain/blocks.ts';
import { advanceCursor, readCursor } from './block-cursor.ts';
import { followPollMs } from './block-pace.ts';
import { firingsOfBlock, withTransactions } from './block-matching.ts';
import type { NetworkFollow } from './network-follows.ts';
import { followerLag, noteFollowing } from '../../metrics/metrics.ts';
import { noteRunEnds } from '../notifications/run-end.ts';
import { quarantine } from './quarantine.ts';
import { recordRuns, type Firing, type FiredRun } from '../runs/fires.ts';
import { capPerAccount, refusedByCap } from '../runs/run-cap.ts';
import type { StateEvaluation } from './state-trigger-follow.ts';
import { saveMarks } from './state-trigger-mark.sql.ts';

interface FollowDeps extends NetworkFollow {
  em: EntityManager;
  /** Called while waiting and after each block, so that a lost worker is noticed. */
  beat: () => void;
  /** NEOFLOW_ACCOUNT_RUNS_PER_READ: runs of one account a block starts (run-cap.ts). */
  runsPerAccount: number;
}

/** A round reads at most this many blocks, so that actions start while catching up. */
const maxBlocksPerRound = 20;
/** A round that sees no new block ends after this, giving the workflow a turn. */
const idleRoundMs = 5_000;
/**
 * Tries of one automation's runs of a block, on their own, after the block's runs failed together:
 * then its input is quarantined for it (quarantine.ts).
 */
const isolatedAttempts = 2;

/**
 * One round of the follower of `network` (its magic, as text; `deps` its nodes and what the
 * worker keeps of it, network-follows.ts): waits for blocks past the cursor, then for each block
 * records the runs it fires and moves the cursor past it in one transaction. A crash between two
 * blocks loses nothing and repeats nothing. At the head it starts evaluating the state triggers in
 * the background, where each evaluation done is recorded too, and each round takes the runs so
 * recorded (state-trigger-follow.ts): the runs of a block's events never wait for state reads. Returns the runs to start; a run recorded by a
 * round whose worker died before starting it is started by the recovery sweep. The lag gauges are
 * set whether the round succeeds or fails.
 */
export async function followRound(deps: FollowDeps, network: string): Promise<FiredRun[]> {
  const at: { height?: number; next?: number } = {};
  noteFollowing(network);
  try {
    const cursor = await readCursor(deps.em, { network, name: deps.name }, () => deps.neo.getBlockCount());
    noteFollowing(network, cursor.advancedAt);
    const next = cursor.nextIndex;
    at.next = next;
    // Blocks followed elsewhere may have updated contracts this cache knows.
    if (deps.followed.next !== next) deps.abi.forgetAll();
    const height = await waitForBlock(deps, next);
    at.height = height;
    const last = Math.min(height, next + maxBlocksPerRound);
    const fired: FiredRun[] = [];
    const watchers = await deps.watchers.current(deps.em);
    await deps.contracts.check(deps.em, watchers);
    for (let index = next; index < last; index++) {
      const block = await readBlockNotifications(deps.neo, index);
      for (const contract of changedContracts(block)) deps.abi.forget(contract);
      const firings = await firingsOfBlock(await withTransactions(deps.neo, block, watchers), watchers, deps.abi);
      const capped = capPerAccount(firings, deps.runsPerAccount, `Block ${index}`);
      fired.push(...(await recordBlock(deps, capped, { network, index })));
      deps.followed.next = at.next = index + 1;
      noteFollowing(network, new Date());
      // State is read at the head only: a node answers reads of its current state.
      if (index === height - 1) {
        deps.state.recordDone(stateRecorder(deps));
        deps.state.startAtHead(deps.em.fork(), block);
      }
      deps.beat();
    }
    deps.state.recordDone(stateRecorder(deps));
    fired.push(...deps.state.takeRecorded());
    return fired;
  } finally {
    noteFollowing(network);
    if (at.height !== undefined && at.next !== undefined) {
      followerLag.set({ network }, Math.max(0, at.height - at.next));
    }
  }
}

/** Records state evaluations, off the round's path (StateFollow.recordDone): their runs with their marks. */
const stateRecorder =
  (deps: FollowDeps) =>
  (states: StateEvaluation[]): Promise<FiredRun[]> => {
    const firings = states.flatMap((state) => state.firings);
    const capped = capPerAccount(firings, deps.runsPerAccount, 'A state evaluation');
    return recordBlock({ ...deps, em: deps.em.fork() }, capped, null, states);
  };

/**
 * Records a block's runs, or a state evaluation's with its marks, and moves the cursor past the
 * block (`cursor`), in one transaction: all together first; if that fails, each automation's runs
 * on their own (a savepoint each), so that one automation's runs the database refuses are
 * quarantined for it while the others are recorded. A failure of the database itself fails the
 * round: the block is read again, nothing skipped (a state evaluation lost so is made again at a
 * later head).
 */
async function recordBlock(
  deps: FollowDeps,
  firings: Firing[],
  cursor: { network: string; index: number } | null,
  states: StateEvaluation[] = [],
) {
  const record = (isolated: boolean) =>
    deps.em.transactional(async (em) => {
      const runs = isolated ? await recordIsolated(em, firings) : await recordFirings(em, firings);
      for (const state of states) await saveMarks(em, state.blockIndex, state.marks);
      if (cursor) await advanceCursor(em, { network: cursor.network, name: deps.name }, cursor.index);
      return runs;
    });
  try {
    return await record(false);
  } catch (error) {
    if (firings.length === 0) throw error;
    return record(true);
  }
}

async function recordIsolated(em: EntityManager, firings: Firing[]): Promise<FiredRun[]> {
  const runs: FiredRun[] = [];
  for (const own of Map.groupBy(firings, (firing) => firing.automation.id).values()) {
    runs.push(...(await recordOwn(em, own)));
  }
  return runs;
}

/** One automation's runs of a block, tried `isolatedAttempts` times, then quarantined. */
async function recordOwn(em: EntityManager, firings: Firing[]): Promise<FiredRun[]> {
  let failure: unknown;
  for (let attempt = 0; attempt < isolatedAttempts; attempt++) {
    try {
      return await em.transactional((savepoint) => recordFirings(savepoint, firings));
    } catch (error) {
      failure = error;
    }
  }
  const quarantined = firings.map((firing) => (firing.error ? firing : quarantine(firing, failure)));
  return em.transactional((savepoint) => recordFirings(savepoint, quarantined));
}

/**
 * Records the runs of `firings` and, for those quarantined, the notifications their failure calls
 * for, in the same transaction: a worker lost before their action starts loses no notice (the
 * recovery sweep delivers what is recorded; the action's own look at the run's end finds it told).
 * Returns the runs to start: those the per-account cap refused are ended, and start nothing.
 */
async function recordFirings(em: EntityManager, firings: Firing[]): Promise<FiredRun[]> {
  const runs = await recordRuns(em, firings);
  await noteRunEnds(
    em,
    runs.filter((_, index) => firings[index]!.error).map((run) => run.runId),
  );
  return runs.filter((_, index) => !refusedByCap(firings[index]!));
}

/**
 * The chain's block count once it exceeds `next`, or as last seen when the round's wait ends:
 * early when a state evaluation's runs are recorded, so that they start without waiting for a
 * block. At the head, the height is asked for only once the next block can be due (block-pace.ts).
 */
async function waitForBlock(deps: FollowDeps, next: number): Promise<number> {
  const deadline = Date.now() + idleRoundMs;
  for (;;) {
    // Unasked, the count is the highest seen, which is not past `next` (quietUntil). Asked, it is
    // the node's own: one behind the others after a failover is waited for, not read past its head.
    let count = deps.pace.count;
    if (Date.now() >= deps.pace.quietUntil(next)) {
      count = await deps.neo.getBlockCount();
      deps.pace.note(count, Date.now());
    }
    deps.state.recordDone(stateRecorder(deps));
    if (count > next || deps.state.recorded || Date.now() >= deadline) return count;
    deps.beat();
    await sleep(followPollMs);
  }
}
