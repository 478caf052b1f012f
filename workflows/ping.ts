import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import type { PingWorkflow } from '../src/shared/workflow-signatures.ts';

const { ping } = proxyActivities<Activities>({
  startToCloseTimeout: '10 seconds',
  retry: { maximumAttempts: 3, initialInterval: '200 ms' },
});

/** Round trip through a worker: a workflow task, then an activity task. */
export const pingWorkflow: PingWorkflow = async () => {
  return ping();
};
