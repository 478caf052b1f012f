import type { BlockNotification, BlockNotifications, EventParameter } from '../chain/blocks.ts';
import type { BlockchainTrigger } from './automations.schemas.ts';
import { decodeState, matches } from './notification-match.ts';
import { quarantine } from './quarantine.ts';
import type { Firing } from './runs.ts';

/** An active blockchain automation, as the follower reads it for every round. */
export interface Watcher {
  id: string;
  account: { id: string };
  trigger: BlockchainTrigger;
  /** The first block it watches. */
  watchFromBlock: number;
}

/** Event parameter names and types by contract and event (see chain/blocks.ts). */
export interface EventAbi {
  parameters(contract: string, eventName: string): Promise<EventParameter[] | null>;
}

/**
 * The firings one block causes among the active blockchain automations. Notifications are
 * grouped by contract first, so the work grows with matches, not automations × notifications.
 */
export async function firingsOfBlock(block: BlockNotifications, watchers: Watcher[], abi: EventAbi): Promise<Firing[]> {
  const byContract = Map.groupBy(block.notifications, (notification) => notification.contract);
  const firings: Firing[] = [];
  for (const automation of watchers) {
    if (automation.watchFromBlock > block.blockIndex) continue;
    const { trigger } = automation;
    for (const notification of byContract.get(trigger.scriptHash.toLowerCase()) ?? []) {
      if (trigger.event !== undefined && trigger.event !== notification.eventName) continue;
      const parameters = await abi.parameters(notification.contract, notification.eventName);
      const firing = firingIfMatches(automation, notification, parameters);
      if (firing) firings.push(firing);
    }
  }
  return firings;
}

/**
 * The automation's firing if the notification matches it. A notification this automation cannot
 * match or decode fires it quarantined (quarantine.ts): its own failed run, never a stopped follower.
 */
function firingIfMatches(automation: Watcher, notification: BlockNotification, parameters: EventParameter[] | null) {
  try {
    if (!matches(automation.trigger, notification, parameters)) return null;
    return firingOf(automation, notification, decodeState(notification.state, parameters));
  } catch (error) {
    return quarantine(firingOf(automation, notification, null), error);
  }
}

/** Named by its container and position: a notification fires an automation once, ever. */
function firingOf(automation: Watcher, notification: BlockNotification, state: unknown): Firing {
  return {
    automation,
    fireKey: `event:${notification.container}:${notification.notificationIndex}`,
    payload: {
      type: 'blockchain',
      scriptHash: notification.contract,
      eventName: notification.eventName,
      state,
      txHash: notification.txHash,
      blockHash: notification.blockHash,
      blockIndex: notification.blockIndex,
      notificationIndex: notification.notificationIndex,
    },
  };
}
