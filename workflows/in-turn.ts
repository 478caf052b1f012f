import { ActivityFailure, ApplicationFailure, sleep } from '@temporalio/workflow';
import { accountBusyPauses, accountBusyType } from '../src/shared/account-busy.ts';

/**
 * Runs an automation's step (an activity) once its account has a turn on a worker: while the step
 * is refused because the account holds its share of activity slots, the workflow waits on a timer
 * (holding no slot), longer each time, and asks again. `step` gets the attempts made so far, so a
 * delivery's attempts are counted across its turns.
 */
export async function inTurn<T>(step: (attemptsMade: number) => Promise<T>): Promise<T> {
  let attemptsMade = 0;
  for (
    let pauseMs: number = accountBusyPauses.firstMs;
    ;
    pauseMs = Math.min(pauseMs * 2, accountBusyPauses.longestMs)
  ) {
    try {
      return await step(attemptsMade);
    } catch (error) {
      const made = attemptsBeforeRefusal(error);
      if (made === undefined) throw error;
      attemptsMade = made;
    }
    await sleep(pauseMs);
  }
}

function attemptsBeforeRefusal(error: unknown): number | undefined {
  if (!(error instanceof ActivityFailure)) return undefined;
  const cause = error.cause;
  if (!(cause instanceof ApplicationFailure) || cause.type !== accountBusyType) return undefined;
  return Number(cause.details?.[0] ?? 0);
}
