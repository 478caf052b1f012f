import { WorkflowNotFoundError } from '@temporalio/client';
import type { WorkflowStarter } from '../../temporal/workflow-starter.ts';
import { attributeKeys } from '../../shared/workflow-attributes.ts';
import { ignore } from '../../temporal/ignore.ts';
import { leaveToSweepIfDown } from '../../temporal/leave-to-sweep.ts';
import type { PriceSourcePollerWorkflow } from '../../shared/workflow-signatures.ts';
import { pricePollerId } from './price-source-key.ts';

/**
 * How long after a wake of a source's poller the wakes asked meanwhile wait, to be sent as one: a
 * worker reads a source at most once a second anyway (docs/api.md, price triggers), so more wakes
 * in that second only repeat the poll's read of the rows and its write, into the poller's history.
 */
const wakeWindowMs = 1_000;

/**
 * The pollers of the price sources active automations read: one per source, which reads its
 * automations' rows at every poll. The process holds one, so that the wakes asked within a
 * second of each other are sent as one.
 */
export class PricePollers {
  readonly #target: WorkflowStarter;
  /** The sources woken less than a window ago, and whether a wake was asked since. */
  readonly #wakeWindows = new Map<string, { again: boolean }>();

  constructor(target: WorkflowStarter) {
    this.#target = target;
  }

  /**
   * Starts the source's poller unless it runs, and has it poll now (an automation joined it). A
   * source woken less than `wakeWindowMs` ago is woken once more at the window's end for every
   * create that came meanwhile, which answers without waiting for it: price creates at 100/s over
   * a few sources made a poll each (13 ms of worker CPU a create, issue 34). A wake that fails then
   * is logged (leaveToSweepIfDown): the poller reads the row at its next poll, or the reconciler
   * starts one missing.
   */
  async wake(source: string) {
    const open = this.#wakeWindows.get(source);
    if (open) {
      open.again = true;
      return;
    }
    await this.#wakeInWindow(source);
  }

  /** Starts the source's poller unless it runs (the reconciler, for each source active automations read). */
  async ensure(source: string) {
    await this.#target.client.workflow.start<PriceSourcePollerWorkflow>('priceSourcePoller', {
      ...this.#options(source),
      workflowIdConflictPolicy: 'USE_EXISTING',
    });
  }

  /**
   * Terminates the pollers of one automation each that versions before shared sources started
   * (workflow type `pricePoller`, id = automation id): no worker runs that type any more.
   */
  async stopRetired() {
    const { client, taskQueue } = this.#target;
    const query = `WorkflowType = 'pricePoller' AND ExecutionStatus = 'Running' AND TaskQueue = '${taskQueue.replaceAll("'", "''")}'`;
    for await (const workflow of client.workflow.list({ query })) {
      await client.workflow
        .getHandle(workflow.workflowId, workflow.runId)
        .terminate('price triggers are read by one poller per source')
        .catch(ignore(WorkflowNotFoundError));
    }
  }

  /** Wakes the source's poller and opens its window, at whose end the wakes asked meanwhile are sent. */
  #wakeInWindow(source: string): Promise<void> {
    const window = { again: false };
    this.#wakeWindows.set(source, window);
    setTimeout(() => {
      this.#wakeWindows.delete(source);
      if (window.again) void leaveToSweepIfDown(this.#target, () => this.#wakeInWindow(source));
    }, wakeWindowMs).unref();
    return this.#signal(source);
  }

  async #signal(source: string) {
    await this.#target.client.workflow.signalWithStart<PriceSourcePollerWorkflow, []>('priceSourcePoller', {
      ...this.#options(source),
      // workflows/price-source-poller.ts: its wakeSignal.
      signal: 'wake',
      signalArgs: [],
    });
  }

  /** Options of a source's poller: it serves every automation of the source, labelled by trigger type only. */
  #options(source: string) {
    return {
      workflowId: pricePollerId(source),
      taskQueue: this.#target.taskQueue,
      args: [source] as [string],
      typedSearchAttributes: [{ key: attributeKeys.trigger, value: 'price' }],
    };
  }
}
