/**
 * The block follower's own task queue beside the deployment's: only worker processes poll it,
 * with slots of its own, so tenants' deliveries, relays and runs queued on the main queue never
 * delay a block read. Plain: workflows import it too.
 */
export const followerTaskQueue = (taskQueue: string) => `${taskQueue}-follower`;

/**
 * The automation runs' task queue beside the deployment's: only worker processes poll it, so a
 * run the API did not start eagerly (a hook's, a block's, a price's, one the sweep starts again)
 * never runs its code in an API process, whose worker polls the main queue alone. A flood of a
 * hook's deliveries then costs the API their answers, not their runs.
 */
export const runsTaskQueue = (taskQueue: string) => `${taskQueue}-runs`;
