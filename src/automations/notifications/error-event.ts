import type { EntityManager } from '@mikro-orm/postgresql';
import { Automation } from '../model/automation.entity.ts';
import { recordNotifications, rulesFor } from './record.ts';

type ErrorDetails = NonNullable<Automation['errorDetails']>;

/**
 * Moves an automation to `error` with its reason, unless `where` no longer holds (a PATCH
 * meanwhile wins, and an automation already in error stays as it was), and records the error
 * notifications of that move in the same transaction. Returns them; the recovery sweep starts
 * any whose delivery the caller does not start itself.
 */
export async function stopWithError(
  em: EntityManager,
  where: { id: string; status?: 'active'; triggerType?: Automation['triggerType'] },
  errorDetails: ErrorDetails,
): Promise<string[]> {
  return em.transactional(async (tx) => {
    const now = new Date();
    const moved = await tx.nativeUpdate(
      Automation,
      { ...where, status: where.status ?? { $ne: 'error' } },
      { status: 'error', errorDetails, updatedAt: now },
    );
    if (moved === 0) return [];
    const automation = await tx.findOneOrFail(Automation, { id: where.id });
    const cause = { event: 'error' as const, run: null, reason: errorDetails.message };
    return recordNotifications(tx, automation, rulesFor(automation, 'error'), `error:${now.toISOString()}`, cause);
  });
}
