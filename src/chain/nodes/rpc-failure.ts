import { NeoRpcError } from '../rpc.ts';

/**
 * Whose problem a failed call is (issue 45): `node` (no answer, a timeout, an HTTP failure, a
 * method the node lacks) moves the call to another node and marks this one down; `not-yet` (the
 * node does not hold the block or log yet) waits and asks again, never skips; `request` (any other
 * JSON-RPC error: an unknown transaction, a refused script) is the caller's, answered as it is.
 */
type FailureClass = 'node' | 'not-yet' | 'request';

/** JSON-RPC's "method not found": a node of another kind. */
export const methodNotFound = -32601;
/** A C# node's "invalid params", which its ApplicationLogs answer for a hash it does not hold. */
const invalidParams = -32602;
/** neo-go's unknown script container (a log not there yet) and beyond-the-tip (a block not there yet). */
const unknownContainer = -105;
const beyondTip = -109;
/** neo-go's and neo-cli's (3.7 on) unknown block; neo-cli before 3.7 answered -100. */
const unknownBlock = -101;
const unknownBlockBefore37 = -100;

/** Reads of blocks and their logs: a node that does not hold the block yet answers one of these. */
const blockReads = new Set([
  'getblockhash',
  'getblock',
  'getblockheader',
  'getblocknotifications',
  'getapplicationlog',
]);

export function classify(error: unknown, method: string): FailureClass {
  if (!(error instanceof NeoRpcError)) return 'node';
  if (error.code === undefined) return 'node';
  if (error.code === methodNotFound) return 'node';
  if (
    blockReads.has(method) &&
    [invalidParams, unknownContainer, beyondTip, unknownBlock, unknownBlockBefore37].includes(error.code)
  )
    return 'not-yet';
  return 'request';
}

/** Errors a caller's own abort raised: not the node's fault. */
export const abortedBy = (signal: AbortSignal | undefined) => signal?.aborted === true;
