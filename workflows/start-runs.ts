import { condition, isCancellation, log, patched, proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import type { FiredRun } from '../activities/automations.ts';
import { attributeKeys } from '../src/shared/workflow-attributes.ts';
import { runStartsInFlight } from '../src/shared/run-starts.ts';
import { startAction } from './start-action.ts';

/**
 * On the loop's own task queue (the follower's is its own). Each start heartbeats; a start
 * Temporal keeps refusing leaves its run to the reconciler, which starts every run recorded and not
 * started (workflows/recovery-sweep.ts): the loop that fired it goes on.
 */
const { startRuns } = proxyActivities<Activities>({
  startToCloseTimeout: '5 minutes',
  heartbeatTimeout: '30 seconds',
  retry: { maximumAttempts: 3, initialInterval: '1 second' },
});

/** Runs one start activity is given: its input in history stays small. */
const runsPerStart = 100;
/** Runs of one account a batch takes before the next account's: an account's burst waits its turn. */
const runsPerTurn = 20;
/** Runs waiting past which the loop waits before it reads on: its memory stays bounded. */
const mostWaiting = 10_000;

/**
 * Names the change that made shared loops start runs through the client instead of as their
 * children: histories recorded before it replay as they ran (children), later ones as now.
 */
const startedThroughClient = 'runs-started-through-client';

const accountOf = (run: FiredRun) =>
  String(run.labels.find(({ key }) => key.name === attributeKeys.account.name)?.value ?? '');

/**
 * Starts the actions of runs a loop every account shares fired (the reconciler, a replay; the
 * follower and a price poller that began on code before they started their runs in their own
 * activities: workflows/block-follower.ts, workflows/price-source-poller.ts). They are no children of the loop: Temporal counts a parent's children
 * until each closes and refuses a start past `limit.numPendingChildExecutions.error` (2,000 by
 * default), which would stall the loop behind one account's long runs (docs/deployment.md). The
 * loop does not wait for them either: they wait here, each account in its turn, and at most
 * `runStartsInFlight` start activities run at once. `again`: the reconciler's, which starts again a
 * run whose workflow closed while its row still runs.
 */
export class RunStarter {
  readonly #taskQueue: string | undefined;
  readonly #again: boolean;
  readonly #waiting = new Map<string, FiredRun[]>();
  #count = 0;
  #inFlight = 0;

  constructor(taskQueue?: string, again = false) {
    this.#taskQueue = taskQueue;
    this.#again = again;
  }

  /** Queues `runs` to start; waits only while too many runs already wait. */
  async add(runs: FiredRun[]): Promise<void> {
    if (runs.length === 0) return;
    if (!patched(startedThroughClient)) {
      await Promise.all(runs.map((run) => startAction(run, this.#taskQueue)));
      return;
    }
    for (const run of runs) {
      const account = accountOf(run);
      const waiting = this.#waiting.get(account);
      if (waiting) waiting.push(run);
      else this.#waiting.set(account, [run]);
    }
    this.#count += runs.length;
    this.#pump();
    if (this.#count >= mostWaiting) await condition(() => this.#count < mostWaiting);
  }

  /** Until every run queued has been handed to Temporal: before the loop ends or continues as new. */
  async drain(): Promise<void> {
    const idle = () => this.#count === 0 && this.#inFlight === 0;
    if (!idle()) await condition(idle);
  }

  #pump() {
    while (this.#inFlight < runStartsInFlight && this.#count > 0) {
      const batch = this.#take();
      this.#inFlight += 1;
      void this.#start(batch).finally(() => {
        this.#inFlight -= 1;
        this.#pump();
      });
    }
  }

  /** Up to `runsPerStart` runs, `runsPerTurn` of each account in turn, the accounts served rotating. */
  #take(): FiredRun[] {
    const batch: FiredRun[] = [];
    while (batch.length < runsPerStart && this.#count > 0) {
      for (const account of [...this.#waiting.keys()]) {
        const runs = this.#waiting.get(account)!;
        const taken = runs.splice(0, Math.min(runsPerTurn, runsPerStart - batch.length));
        batch.push(...taken);
        this.#count -= taken.length;
        this.#waiting.delete(account);
        if (runs.length > 0) this.#waiting.set(account, runs);
        if (batch.length >= runsPerStart) break;
      }
    }
    return batch;
  }

  /** Never fails: what it could not start is the reconciler's, and the loop goes on. */
  async #start(batch: FiredRun[]) {
    try {
      await startRuns(batch, this.#taskQueue, this.#again);
    } catch (error) {
      if (isCancellation(error)) return;
      log.warn('runs recorded, their start left to the reconciler', { runs: batch.length, error: String(error) });
    }
  }
}
