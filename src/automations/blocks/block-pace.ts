/**
 * When a network's next block can be due, learnt from when this worker saw its height grow: a
 * follower at the head asks for the height only from shortly before then, instead of every poll
 * from the block before (a node a user pays per call for answered 75 calls a 15-second block).
 * Learnt rather than read from the node's protocol settings, so that it needs no call of its own
 * and holds for any node: the shortest of the recent gaps between blocks seen, less a lead of a
 * few polls for a block that comes early or was seen late. Catching up (more than one block a
 * look) makes a gap of 0, and asks at every poll again.
 */
/** How often a follower at the head looks at the chain's height once a block can be due: how late a block is seen at most. */
export const followPollMs = 200;

export class BlockPace {
  readonly #pollMs: number;
  /** The heights (block counts) seen grow, with when, newest last: at most `kept` gaps' worth. */
  readonly #seen: { count: number; at: number }[] = [];

  constructor(pollMs: number) {
    this.#pollMs = pollMs;
  }

  /** The highest block count seen so far (0 before any). */
  get count(): number {
    return this.#seen.at(-1)?.count ?? 0;
  }

  /** Notes the chain's block count as read at `at` (ms): a count higher than the last is a new block seen then. */
  note(count: number, at: number) {
    const last = this.#seen.at(-1);
    if (last && count <= last.count) return;
    // A jump of several blocks at once (catching up, or a node that was behind) is a gap of 0 each.
    this.#seen.push({ count, at: last && count - last.count > 1 ? last.at : at });
    if (this.#seen.length > kept + 1) this.#seen.shift();
  }

  /**
   * Until when (ms) a look for the block after count `next` - 1 would find nothing: 0 (look now)
   * unless every block seen is behind the caller, and at least `kept` gaps were seen.
   */
  quietUntil(next: number): number {
    const last = this.#seen.at(-1);
    if (!last || last.count > next || this.#seen.length <= kept) return 0;
    let shortest = Number.POSITIVE_INFINITY;
    for (let index = 1; index < this.#seen.length; index++)
      shortest = Math.min(shortest, this.#seen[index]!.at - this.#seen[index - 1]!.at);
    const lead = Math.max(leadPolls * this.#pollMs, shortest * leadShare);
    return Math.max(0, last.at + shortest - lead);
  }
}

/** Gaps between blocks remembered: the shortest of them is the pace. */
const kept = 8;
/** Polls before the due time at which looks begin: a block seen up to a poll late, and dBFT's jitter. */
const leadPolls = 2;
/** Or this share of the gap, if more: a slow chain's blocks drift more in absolute terms. */
const leadShare = 0.1;
