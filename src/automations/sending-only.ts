import { AppError } from '../errors.ts';
import type { Budget } from '../chain/gas-budget.ts';
import { sendsTransactions, type Action } from './model/action.schemas.ts';

/** A budget and approvals bound what transactions cost and who lets them go: an action that sends none has none. */
export function assertSendingOnly(action: Action, budget: Budget | null) {
  if (sendsTransactions(action)) return;
  if ('approval' in action && action.approval) {
    const field = 'action.approval';
    throw new AppError('invalid_request', `"${field}" applies only to an action that sends transactions.`, { field });
  }
  if (budget === null) return;
  throw new AppError(
    'invalid_request',
    'A budget applies only to an action that sends transactions: a contract action, or a function action with execute.',
    { field: 'budget' },
  );
}
