import type { TriggerType } from './trigger.schemas.ts';

/**
 * The trigger types the network's block follower serves: blockchain and transaction triggers match each block's
 * notifications, state triggers read contract state at the head (state-trigger-follow.ts).
 */
export const blockTriggerTypes: TriggerType[] = ['blockchain', 'transaction', 'state'];

export const followsBlocks = (type: TriggerType) => blockTriggerTypes.includes(type);
