import type { Client } from '@temporalio/client';
import type { Logger } from '../log.ts';

/** What a module that starts workflows is given: the process's client and the task queue its runs go on. */
export interface WorkflowStarter {
  client: Client;
  taskQueue: string;
  /** Where a start Temporal refused is told: the row stays, and the reconciler starts its workflow. */
  log: Pick<Logger, 'warn'>;
}
