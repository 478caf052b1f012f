import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../../errors.ts';
import { lockedStateTriggerCount } from './automation.sql.ts';

/**
 * The most state triggers an account may have, whatever their status: each is read by the shared
 * block follower at every head block it is due (docs/api.md, "State triggers").
 */
export const stateTriggersPerAccount = 20;

/**
 * Refuses a state trigger more once the account has `stateTriggersPerAccount` of them; inside the
 * transaction that writes it, which the check's lock orders behind the account's others.
 */
export async function assertStateTriggerRoom(em: EntityManager, accountId: string): Promise<void> {
  if ((await lockedStateTriggerCount(em, accountId)) < stateTriggersPerAccount) return;
  throw new AppError(
    'automation_limit_reached',
    `This account has ${stateTriggersPerAccount} state triggers, the most it may have; delete one or give it another trigger to add another.`,
    { limit: stateTriggersPerAccount, triggerType: 'state' },
  );
}
