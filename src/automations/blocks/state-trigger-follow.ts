import type { EntityManager } from '@mikro-orm/postgresql';
import type { NeoRpc } from '../../chain/rpc.ts';
import { quarantine } from './quarantine.ts';
import type { Firing, FiredRun } from '../runs/fires.ts';
import type { MarkWrite } from './state-trigger-mark.sql.ts';
import { decideState, freshMark, isDue, observedValue } from '../model/state-trigger-value.ts';
import { StateReader, type Read, type StateReadLimits } from './state-reads.ts';
import { StateTriggerIndex, type StateCandidate } from './state-trigger-index.ts';

/** What the follower records of one block's state triggers: their runs and marks, in one transaction. */
export interface StateEvaluation {
  blockIndex: number;
  firings: Firing[];
  marks: MarkWrite[];
}

interface HeadBlock {
  blockIndex: number;
  blockHash: string;
}

/**
 * The state triggers of one network's follower in one worker. Each head block starts an evaluation
 * in the background, its rows read and then the node, each account in a lane of its own, while the
 * round records the block's events and the workflow starts their runs, so that no read, however
 * slow, holds back an event's run or another account's trigger. Each lane's evaluation, once
 * done, is recorded in the background too (its runs and marks together), and a later round takes
 * the runs recorded to start them. An account is in one lane at a time: until its evaluation is
 * recorded, later blocks leave it out. A worker lost meanwhile loses an evaluation, not a
 * crossing: its triggers stay due and are read at a later head.
 */
export class StateFollow {
  readonly #index: StateTriggerIndex;
  readonly #reader: StateReader;
  /** The accounts whose lane is reading, or done and not yet recorded. */
  readonly #busy = new Set<string>();
  #done: { account: string; evaluation: StateEvaluation }[] = [];
  /** The reading of a head's rows, while it goes on. */
  #starting: Promise<void> | undefined;
  /** The recording of evaluations done, while it goes on. */
  #recording: Promise<void> | undefined;
  /** Runs recorded from evaluations, not yet taken to be started. */
  #recorded: FiredRun[] = [];

  /** `network`: the name of the network whose nodes `neo` are. */
  constructor(network: string, neo: NeoRpc, limits?: StateReadLimits) {
    this.#index = new StateTriggerIndex(network);
    this.#reader = new StateReader(neo, limits);
  }

  /** Whether runs recorded from evaluations wait to be taken. */
  get recorded(): boolean {
    return this.#recorded.length > 0;
  }

  /** The runs recorded from evaluations since the last take: to start. */
  takeRecorded(): FiredRun[] {
    const runs = this.#recorded;
    this.#recorded = [];
    return runs;
  }

  /**
   * Records the evaluations done with `record` (their runs and marks in one transaction), in the
   * background, unless a recording is under way: a block's quarantined runs took the round up to
   * 1.3 s to record (issue 44). Their accounts stay out of later heads until the marks are
   * written, so that no crossing is decided twice. Should the recording fail, those evaluations are
   * lost, not their crossings: the triggers stay due and are read at a later head.
   */
  recordDone(record: (states: StateEvaluation[]) => Promise<FiredRun[]>): void {
    if (this.#recording || this.#done.length === 0) return;
    const done = this.#done;
    this.#done = [];
    this.#recording = record(done.map(({ evaluation }) => evaluation))
      .then(
        (runs) => void this.#recorded.push(...runs),
        () => undefined,
      )
      .finally(() => {
        for (const { account } of done) this.#busy.delete(account);
        this.#recording = undefined;
      });
  }

  /**
   * Starts evaluating the triggers due at `block`, the chain's head as the follower sees it, and
   * returns at once: even the rows are read off the round's path (the first read of 6,000 large
   * triggers took 4.3 s, issue 44). While one head's rows are still being read, later heads start
   * nothing; their triggers stay due. Should reading the rows fail, they are read at a later head.
   */
  startAtHead(em: EntityManager, block: HeadBlock): void {
    if (this.#starting) return;
    this.#starting = this.#start(em, block)
      .catch(() => undefined)
      .finally(() => (this.#starting = undefined));
  }

  /**
   * The evaluation of the triggers due at `block`: one `invokefunction` per distinct (contract,
   * method, arguments), whatever the number of automations sharing it, never signed
   * (state-reads.ts bounds them).
   */
  async #start(em: EntityManager, block: HeadBlock): Promise<void> {
    const due = (await this.#index.current(em)).filter(
      ({ row, indexed, key }) =>
        !this.#busy.has(row.account_id) &&
        !this.#reader.paused(row.account_id, block.blockIndex) &&
        isDue(
          block.blockIndex,
          indexed.trigger.everyBlocks ?? 1,
          row.condition_key === key ? row.evaluated_block : null,
        ),
    );
    const session = this.#reader.session(block.blockIndex);
    for (const { account, candidates, keys } of lanesOf(due)) {
      this.#busy.add(account);
      void this.#reader
        .readLane(session, { account, keys })
        .then((reads) => decideAll(block, candidates, reads))
        // Nothing here throws; should it, the triggers stay due and are read at a later head.
        .catch((): StateEvaluation => ({ blockIndex: block.blockIndex, firings: [], marks: [] }))
        .then((evaluation) => this.#done.push({ account, evaluation }));
    }
  }
}

/** The block the trigger's current mark was decided at; null when it has none for the trigger as it stands. */
const evaluatedBlock = ({ row, key }: StateCandidate) => (row.condition_key === key ? row.evaluated_block : null);

/**
 * Each account's triggers and distinct reads, the least recently evaluated first; the accounts
 * whose turn has waited longest first, so that the reads a block's budget leaves out come first
 * at the next one.
 */
function lanesOf(due: StateCandidate[]) {
  const oldest = (candidate: StateCandidate) => evaluatedBlock(candidate) ?? -1;
  const lanes = [...Map.groupBy(due, (candidate) => candidate.row.account_id)].map(([account, candidates]) => {
    candidates.sort((a, b) => oldest(a) - oldest(b));
    const keys = [...new Set(candidates.map((candidate) => candidate.indexed.readKey))];
    return { account, candidates, keys, since: oldest(candidates[0]!) };
  });
  return lanes.sort((a, b) => a.since - b.since);
}

/**
 * The runs to record and the marks to write. A trigger whose read was not made this block is left
 * as it was (still due). A read the node refuses, one that overran its deadline, or an answer a
 * trigger cannot compare, is that trigger's alone: the first of a streak is recorded as a
 * quarantined run, telling its owner why, the others only marked, and its armed state is kept.
 */
function decideAll(block: HeadBlock, due: StateCandidate[], reads: Map<string, Read>): StateEvaluation {
  const evaluation: StateEvaluation = { blockIndex: block.blockIndex, firings: [], marks: [] };
  for (const { row, indexed, key } of due) {
    const read = reads.get(indexed.readKey);
    if (read === undefined || 'postponed' in read) continue;
    const current = row.condition_key === key;
    const mark = current ? { armed: row.armed!, lastValue: row.last_value } : freshMark;
    const { trigger } = indexed;
    const observed = 'problem' in read ? read : observedValue(read, trigger.path);
    const decided = 'problem' in observed ? observed : decideState(trigger.condition, indexed.target, mark, observed);
    const firing: Firing = {
      automation: { id: row.id, account: { id: row.account_id } },
      fireKey: `state:${block.blockIndex}`,
      payload: {
        type: 'state',
        scriptHash: trigger.scriptHash.toLowerCase(),
        operation: trigger.operation,
        value: 'problem' in observed ? '' : observed.value,
        blockIndex: block.blockIndex,
        blockHash: block.blockHash,
      },
    };
    if ('problem' in decided) {
      const wasFailing = current && row.failing === true;
      if (!wasFailing) evaluation.firings.push(quarantine(firing, new Error(decided.problem)));
      evaluation.marks.push({ automationId: row.id, conditionKey: key, ...mark, failing: true });
      continue;
    }
    if (decided.fire) evaluation.firings.push(firing);
    evaluation.marks.push({ automationId: row.id, conditionKey: key, ...decided.mark, failing: false });
  }
  return evaluation;
}
