import { cutUnderCap, type BatchCall } from './rpc-batch.ts';

/** What a C# node's `getblock(index, true)` answers that its logs are read by. */
export interface BlockBody {
  hash: string;
  index: number;
  tx: { hash: string }[];
}

/**
 * Calls in one request: each answers a block's body or one log, so this bounds what a request
 * brings back as well as what it sends (far under RpcServer's 1 MiB cap, which is kept too).
 */
export const callsPerRequest = 256;
/** Bodies one read asks for while a reader goes through blocks in order (the follower catching up). */
export const bodiesPerRead = 16;
/** Blocks one reader keeps ahead of the block it reads: their bodies, and their notifications once read. */
export const aheadBlocks = 32;

/** A block kept ahead: its body, and whether its notifications were read too. */
export interface AheadBlock {
  body: BlockBody;
  listed: boolean;
}

interface ReadInput {
  /** The block to read, its body known. */
  block: BlockBody;
  /** The blocks kept after it, consecutive from `block.index + 1`. */
  ahead: AheadBlock[];
  /** The node's block count when last asked, if it was. */
  count?: number;
  /** Whether the block is read right after its predecessor: a reader going through blocks in order. */
  inOrder: boolean;
}

export interface ReadPlan {
  /** Blocks whose logs are read, in order, `block` first. */
  logsOf: BlockBody[];
  /** Blocks whose bodies are asked for, in order. */
  bodies: number[];
  /** Each block's log then its transactions' logs, block after block, then the bodies: cut into requests. */
  requests: BatchCall[][];
}

export const bodyCall = (index: number): BatchCall => ({ method: 'getblock', params: [index, true] });
export const logCall = (hash: string): BatchCall => ({ method: 'getapplicationlog', params: [hash] });
export const logCalls = (block: BlockBody): BatchCall[] => [
  logCall(block.hash),
  ...block.tx.map((transaction) => logCall(transaction.hash)),
];

/**
 * What one read of a C# node's block asks for (issue 45's catch-up): the block's logs always; a
 * reader going in order also gets the logs of the blocks kept after it (whole blocks, while one
 * request holds them) and up to `bodiesPerRead` next bodies, as far as the node's count reaches;
 * any other read, the next body only when none is kept. So behind the tip, one request carries the
 * logs of the blocks whose bodies the last one brought and the bodies of the next ones: about one
 * request per `bodiesPerRead` blocks. At the tip it is the block's logs and the next body (not
 * produced yet, most often): one request a block. A block with more transactions than a request
 * holds is cut into several, in order; no block is left out, and none after it is read along.
 */
export function planRead({ block, ahead, count, inOrder }: ReadInput): ReadPlan {
  const next = block.index + ahead.length + 1;
  const room = inOrder ? Math.min(bodiesPerRead, aheadBlocks - ahead.length) : ahead.length === 0 ? 1 : 0;
  // The next body is asked for even past the count last seen: it may be produced since.
  const produced = count === undefined ? room : Math.max(1, count - next);
  const bodies = Array.from({ length: Math.max(0, Math.min(room, produced)) }, (_, offset) => next + offset);
  const logsOf = [block];
  const logs = logCalls(block);
  for (const { body, listed } of inOrder ? ahead : []) {
    if (listed) continue;
    const more = logCalls(body);
    if (logs.length + more.length + bodies.length > callsPerRequest) break;
    logsOf.push(body);
    logs.push(...more);
  }
  return { logsOf, bodies, requests: cutUnderCap([...logs, ...bodies.map(bodyCall)], callsPerRequest) };
}
