import type { EntityManager } from '@mikro-orm/postgresql';
import { Account } from '../auth/account.entity.ts';
import type { Budget } from '../chain/gas-budget.ts';
import { audit } from '../audit/audit.ts';
import type { Actor } from '../audit/actor.ts';
import { budgetValues, changeSummary } from '../audit/summary.ts';

/** Sets the account's default budget (null removes it), with its audit event, in one transaction. */
export function setDefaultBudget(em: EntityManager, actor: Actor, budget: Budget | null) {
  return em.transactional(async (tx) => {
    await tx.nativeUpdate(Account, { id: actor.accountId }, { budget, updatedAt: new Date() });
    audit(tx, actor, {
      action: 'account.update',
      resource: { type: 'account', id: actor.accountId },
      summary: changeSummary({ budget }, [], budgetValues(budget)),
    });
  });
}
