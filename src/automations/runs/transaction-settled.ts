import { standingOf } from '../../chain/contract-call.ts';
import type { NeoRpc } from '../../chain/rpc.ts';
import { AppError } from '../../errors.ts';
import type { AutomationRun } from '../model/run.entity.ts';
import { runErrorName } from '../../shared/outcomes.ts';

type SentRun = Pick<AutomationRun, 'txHash' | 'validUntilBlock' | 'vmState' | 'error'>;

/**
 * Refuses to act again for a run whose transaction may still be in a block, or is: a retry would
 * sign and send the call a second time. A run's transaction is settled when its block's outcome
 * is recorded (a FAULT: its fees burned, its effects undone), or when the chain proves it expired:
 * the block at its validUntilBlock exists and it is in none, recorded as `TransactionExpired` or
 * read now. A chain that cannot be read proves nothing, and refuses too.
 */
export async function assertTransactionSettled(neo: NeoRpc, run: SentRun) {
  const { txHash, validUntilBlock } = run;
  if (!txHash || validUntilBlock == null || run.vmState || run.error?.name === runErrorName.TransactionExpired) return;
  const standing = await standingOf(neo, txHash, validUntilBlock).catch(() => null);
  if (standing?.state === 'expired') return;
  const details = { txHash, validUntilBlock };
  if (!standing) {
    const message = `The run's transaction ${txHash} may still be included up to block ${validUntilBlock}, and the chain cannot be read now to prove otherwise; retry later.`;
    throw new AppError('transaction_pending', message, details);
  }
  if (standing.state === 'included') {
    const message = `The run's transaction ${txHash} is in block ${standing.blockHash}: the call was made, and a retry would make it again.`;
    throw new AppError('transaction_pending', message, { ...details, blockHash: standing.blockHash });
  }
  const message = `The run's transaction ${txHash} may still be included up to block ${validUntilBlock} (the chain is at ${standing.height}); retry once that block has passed without it.`;
  throw new AppError('transaction_pending', message, { ...details, height: standing.height });
}
