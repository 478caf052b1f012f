import type { Client } from '@temporalio/client';
import type { Logger } from '../log.ts';

/** How long a request waits for Temporal before leaving the change to the reconciler. */
const temporalWaitMs = 5_000;

/**
 * Tells Temporal what a committed row says, or, when Temporal does not answer, leaves it to the
 * reconciler's next pass (the row is the truth; docs/deployment.md): the request is not failed for
 * it, and no lock or pooled connection is held while Temporal is asked.
 */
export async function leaveToSweepIfDown(
  control: { client: Client; log: Pick<Logger, 'warn'> },
  apply: () => Promise<void>,
) {
  try {
    await control.client.withDeadline(Date.now() + temporalWaitMs, apply);
  } catch (error) {
    control.log.warn('Temporal not updated; the reconciler applies the change', { error: String(error) });
  }
}
