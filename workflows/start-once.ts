import { WorkflowExecutionAlreadyStartedError, type SearchAttributePair } from '@temporalio/common';
import { ParentClosePolicy, startChild, type Workflow, type WorkflowIdReusePolicy } from '@temporalio/workflow';

/**
 * Starts a child that outlives its parent (a follower, a poller or a sweep goes on, or continues as
 * new), under a record's id as its workflow id: a record started before, even one whose workflow
 * has closed, stays one workflow, unless `reuse` allows a closed one to be started again.
 * `taskQueue`: where the child runs, when the parent runs on a queue of its own (the follower).
 */
export async function startOnce<T extends (id: string) => Promise<unknown>>(
  workflow: T & Workflow,
  id: string,
  labels?: SearchAttributePair[],
  taskQueue?: string,
  reuse: WorkflowIdReusePolicy = 'REJECT_DUPLICATE',
): Promise<void> {
  try {
    await startChild(workflow, {
      workflowId: id,
      args: [id] as Parameters<T>,
      parentClosePolicy: ParentClosePolicy.ABANDON,
      workflowIdReusePolicy: reuse,
      ...(labels ? { typedSearchAttributes: labels } : {}),
      ...(taskQueue ? { taskQueue } : {}),
    });
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
  }
}
