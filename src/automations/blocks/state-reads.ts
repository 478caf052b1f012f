import { maxArgsBytes, toContractParam, type ContractArg } from '../../chain/contract-args.ts';
import { NeoRpcError, type NeoRpc } from '../../chain/rpc.ts';
import type { Invocation } from '../../chain/stack-item.ts';

/**
 * The reads of a block's state triggers, each account in its own lane (issue 44): one account's
 * slow or failing reads are its problem alone, never the follower's nor another account's.
 */

/** What became of a read: the node's answer, why it is none (the trigger's to be told), or not made this block. */
export type Read = Invocation | { problem: string } | { postponed: true };

export interface StateReadLimits {
  /** A read still unanswered after this is abandoned and fails its triggers' evaluation. */
  readDeadlineMs: number;
  /** The most distinct reads one account makes in a block; its other triggers wait their turn. */
  readsPerAccount: number;
  /** No read starts later than this after the block's reads began: the rest wait for the next block. */
  blockBudgetMs: number;
  /** Reads in flight at once, all accounts together: the node serves the blocks' own reads too. */
  concurrency: number;
  /** Blocks an account's reads pause for after one of them overran the deadline; doubled each time, up to `maxPauseBlocks`. */
  pauseBlocks: number;
  maxPauseBlocks: number;
}

export const stateReadLimits: StateReadLimits = {
  readDeadlineMs: 1_000,
  readsPerAccount: 4,
  blockBudgetMs: 800,
  concurrency: 4,
  pauseBlocks: 10,
  maxPauseBlocks: 640,
};

/** An account's reads of a block, the least recently evaluated first. */
interface AccountReads {
  account: string;
  keys: string[];
}

/** One block's reads: its budget's start, and the reads its lanes share. */
interface ReadSession {
  block: number;
  startedAt: number;
  inFlight: Map<string, Promise<Read>>;
}

interface Pause {
  untilBlock: number;
  blocks: number;
}

/**
 * Reads state for the follower of one worker. An account whose read overran the deadline makes no
 * more reads in that block and none for a pause that doubles while it keeps doing so (kept in the
 * worker's memory: a lost worker forgets it, at the cost of one more slow read).
 */
export class StateReader {
  readonly #neo: NeoRpc;
  readonly #limits: StateReadLimits;
  readonly #slots: Slots;
  readonly #pauses = new Map<string, Pause>();

  constructor(neo: NeoRpc, limits: StateReadLimits = stateReadLimits) {
    this.#neo = neo;
    this.#limits = limits;
    this.#slots = new Slots(limits.concurrency);
  }

  /** Whether `account`'s reads are paused at `block`. */
  paused(account: string, block: number): boolean {
    const pause = this.#pauses.get(account);
    return pause !== undefined && block < pause.untilBlock;
  }

  session(block: number): ReadSession {
    return { block, startedAt: performance.now(), inFlight: new Map() };
  }

  /**
   * One account's reads of the session's block, one at a time, taking turns with the other lanes
   * at the shared slots; a key several lanes of the session make is read once. Never throws: a
   * read not made (the budget spent, the node unreachable) is `postponed` or missing from the
   * answer, and its triggers are evaluated at a later block.
   */
  async readLane(session: ReadSession, { account, keys }: AccountReads): Promise<Map<string, Read>> {
    const reads = new Map<string, Read>();
    for (const key of keys.slice(0, this.#limits.readsPerAccount)) {
      let read = session.inFlight.get(key);
      if (!read) {
        read = this.#inTurn(session, key);
        session.inFlight.set(key, read);
      }
      const answer = await read;
      reads.set(key, answer);
      if ('postponed' in answer) return reads;
      if ('slow' in answer) {
        this.#pause(account, session.block);
        return reads;
      }
    }
    this.#pauses.delete(account);
    return reads;
  }

  /** The read once a slot is free, unless the session's budget is spent by then. */
  async #inTurn(session: ReadSession, key: string): Promise<Read> {
    await this.#slots.take();
    try {
      if (performance.now() - session.startedAt >= this.#limits.blockBudgetMs) return { postponed: true };
      return await this.#readOnce(key);
    } finally {
      this.#slots.give();
    }
  }

  #pause(account: string, block: number) {
    const last = this.#pauses.get(account);
    const blocks = last ? Math.min(last.blocks * 2, this.#limits.maxPauseBlocks) : this.#limits.pauseBlocks;
    this.#pauses.set(account, { untilBlock: block + blocks, blocks });
  }

  /** One test-invocation under the deadline; an answer the node refuses is the trigger's problem, not the round's. */
  async #readOnce(key: string): Promise<Read | { problem: string; slow: true }> {
    if (Buffer.byteLength(key) > maxArgsBytes + 512) {
      return { problem: `the arguments are more than ${maxArgsBytes} bytes as JSON` };
    }
    const [scriptHash, operation, args] = JSON.parse(key) as [string, string, ContractArg[]];
    let params: unknown[];
    try {
      params = args.map((arg) => toContractParam(arg).toJson());
    } catch (error) {
      return { problem: (error as Error).message };
    }
    const deadline = AbortSignal.timeout(this.#limits.readDeadlineMs);
    try {
      return await this.#neo.invokeFunction(scriptHash, operation, params, deadline);
    } catch (error) {
      if (deadline.aborted) {
        return { problem: `the read took longer than ${this.#limits.readDeadlineMs} ms`, slow: true };
      }
      // The node's refusal, or an HTTP status (a 413 for a call too large, a 5xx): this read's.
      if (error instanceof NeoRpcError) return { problem: error.message };
      // No answer at all (the node unreachable): nobody's fault, read again at a later block.
      return { postponed: true };
    }
  }
}

/** A counting semaphore whose waiters are served in turn, so that lanes interleave. */
class Slots {
  #free: number;
  readonly #waiting: (() => void)[] = [];

  constructor(size: number) {
    this.#free = size;
  }

  async take() {
    if (this.#free > 0) {
      this.#free--;
      return;
    }
    await new Promise<void>((resolve) => this.#waiting.push(resolve));
  }

  give() {
    const next = this.#waiting.shift();
    if (next) next();
    else this.#free++;
  }
}
