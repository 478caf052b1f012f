import type { EntityManager } from '@mikro-orm/postgresql';
import type { PricedCall } from '../../chain/contract-call.ts';
import { exhausts, refusalMessage } from '../budget/budget-rules.ts';
import { failUnsent } from './run-contract.sql.ts';
import { reserve } from '../budget/gas-spend.ts';
import { stopWithError } from '../notifications/error-event.ts';
import { runErrorName } from '../../shared/outcomes.ts';

/**
 * Holds a priced transaction to the run's budget before it is signed: true once its fee is
 * reserved. Over budget, the run fails with BudgetExceeded and the figures, and nothing is signed;
 * a perDay or total exhausted also moves an active automation to `error` (`budget_exhausted`),
 * its error notifications recorded, and delivered by the recovery sweep (an activity starts no
 * workflow). False too when the run ended or holds a transaction meanwhile (another attempt's).
 */
export async function reserveRunGas(em: EntityManager, runId: string, call: PricedCall): Promise<boolean> {
  const reserved = await reserve(em, runId, call);
  if (reserved.kind !== 'refused') return reserved.kind === 'reserved';
  const message = refusalMessage(reserved.refusal, reserved.from);
  await failUnsent(em, runId, { name: runErrorName.BudgetExceeded, message });
  if (exhausts(reserved.refusal)) {
    await stopWithError(em, { id: reserved.automationId, status: 'active' }, { reason: 'budget_exhausted', message });
  }
  return false;
}
