import { Worker } from '@temporalio/worker';

type CreatorArgs = Parameters<(typeof Worker)['createWorkflowCreator']>;
type WorkflowCreator = Awaited<ReturnType<(typeof Worker)['createWorkflowCreator']>>;
type Workflow = Awaited<ReturnType<WorkflowCreator['createWorkflow']>>;
export type WorkflowCreateOptions = Parameters<WorkflowCreator['createWorkflow']>[0];

type Logger = CreatorArgs[2];
type WorkflowInfo = WorkflowCreateOptions['info'];

interface StuckGuard {
  /** How long the workflow thread may go without finishing anything while work waits for it. */
  afterMs: number;
  /** Called once, with the workflow whose work has waited longest: the one the thread is on. */
  onStuck(info: WorkflowInfo): void;
}

/** The SDK's own limit on one activation (`isolateExecutionTimeout`'s default). */
const stuckAfterMs = 5_000;
/** How often the guard looks: a stuck thread is named at most this long after the limit. */
const checkEveryMs = 1_000;

/** Names the workflow and exits: the thread cannot be interrupted, and a stuck one stalls them all. */
const exitWhenStuck = (logger: Logger): StuckGuard => ({
  afterMs: stuckAfterMs,
  onStuck: (info) => {
    logger.error(
      'a workflow has held the workflow thread without yielding; exiting so that another worker takes over',
      {
        workflowType: info.workflowType,
        workflowId: info.workflowId,
        runId: info.runId,
        heldMs: stuckAfterMs,
      },
    );
    process.exit(70);
  },
});

/**
 * A worker whose workflow code runs without Node's per-call watchdog. The SDK enters the workflow
 * context several times per activation with `vm`'s `timeout` option, and each entry starts and
 * joins a watchdog thread: 270 µs of CPU per entry on this project's 2-core machines, against 4 µs
 * without (61% of the workflow thread's CPU in the automations benchmark's mixed load). Our
 * workflows are our own code, never a tenant's (theirs runs in isolated-vm inside activities), so
 * the watchdog only ever guards against our own bug: a workflow that never yields. The guard below
 * still catches one, from the main thread at no cost per entry: it cannot interrupt the workflow
 * thread, so it names the workflow and exits, and another worker takes over the other workflows.
 */
export class UnwatchedWorker extends Worker {
  protected static override async createWorkflowCreator(...[bundle, options, logger]: CreatorArgs) {
    // Undefined is what `vm` takes for "no timeout"; the SDK's own option always sets one.
    const unwatched = { ...options, isolateExecutionTimeoutMs: undefined as unknown as number };
    return guardedCreator(await super.createWorkflowCreator(bundle, unwatched, logger), exitWhenStuck(logger));
  }
}

/**
 * `creator`, watched for a stuck workflow thread: work is pending and none has finished for
 * `guard.afterMs`. Progress, not each activation's age, is what counts: after a restart hundreds of
 * activations may queue for the one thread (reused V8 context, one thread), and the last of them
 * waits long behind the others while the thread is well.
 */
export function guardedCreator(creator: WorkflowCreator, guard: StuckGuard): WorkflowCreator {
  const pending = new Map<object, WorkflowInfo>();
  let lastProgress = performance.now();
  let reported = false;
  const check = setInterval(() => {
    const oldest = pending.values().next();
    if (reported || oldest.done || performance.now() - lastProgress < guard.afterMs) return;
    reported = true;
    guard.onStuck(oldest.value);
  }, checkEveryMs);
  check.unref();
  const watched = <T>(info: WorkflowInfo, work: Promise<T>) => {
    const token = {};
    // Work that starts when nothing was pending has waited for nobody: the clock starts with it.
    if (pending.size === 0) lastProgress = performance.now();
    pending.set(token, info);
    return work.finally(() => {
      pending.delete(token);
      lastProgress = performance.now();
    });
  };
  return {
    createWorkflow: async (options) => {
      const workflow: Workflow = await watched(options.info, creator.createWorkflow(options));
      return {
        activate: (activation) => watched(options.info, workflow.activate(activation)),
        getAndResetSinkCalls: () => workflow.getAndResetSinkCalls(),
        dispose: () => workflow.dispose(),
      };
    },
    destroy: () => {
      clearInterval(check);
      return creator.destroy();
    },
  };
}
