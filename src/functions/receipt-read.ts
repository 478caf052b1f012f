import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../errors.ts';
import { readReceipt, type ReadReceipt } from './execution.sql.ts';
import { Execution } from './execution.entity.ts';
import { executionStatus } from '../shared/outcomes.ts';

/**
 * The receipt of an execution (a function's, or an automation run's), or 409 receipt_unavailable
 * saying why there is none: it runs, or it ended without one.
 */
export async function endedReceipt(em: EntityManager, executionId: string): Promise<ReadReceipt> {
  const receipt = await readReceipt(em, executionId);
  if (receipt) return receipt;
  const row = await em.findOne(Execution, { id: executionId }, { fields: ['status'] });
  const message =
    row?.status === executionStatus.running
      ? 'The execution is still running: its receipt is signed as it ends.'
      : 'The execution ended without a receipt: before receipts, or while no receipt key was set.';
  throw new AppError('receipt_unavailable', message);
}
