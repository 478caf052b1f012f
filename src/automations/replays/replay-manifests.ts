import { changedSince } from '../../chain/contract-updates.ts';
import type { NeoRpc } from '../../chain/rpc.ts';
import { listOf } from '../blocks/match.ts';
import type { BlockchainTrigger } from '../model/trigger.schemas.ts';

/**
 * A replay decodes old notifications with the manifests its contracts have today (the node
 * answers no other): a contract updated since makes that decoding wrong, its events renamed or
 * retyped. The workflow does not retry it (workflows/replay-blocks.ts names it by its class, as
 * Temporal types an activity's error): the replay fails with its message.
 */
class ReplayUndecodableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ReplayUndecodableError';
  }
}

/**
 * Refuses to read the blocks from `fromBlock` on when a contract of the trigger was updated (or
 * destroyed) since: within what is left of the range, or after it. Each page asks again, so an
 * update made while the replay runs stops it too.
 */
export async function assertManifestsUnchanged(neo: NeoRpc, trigger: BlockchainTrigger, fromBlock: number) {
  for (const contract of listOf(trigger.scriptHash)) {
    if (!(await changedSince(neo, contract, fromBlock - 1))) continue;
    throw new ReplayUndecodableError(
      `The contract ${contract.toLowerCase()} was updated after block ${fromBlock - 1}: its notifications ` +
        "from then on would be decoded with today's manifest, which may name or type its events differently. " +
        'Replay only blocks after its last update.',
    );
  }
}
