/**
 * The block follower's own task queue beside the deployment's: only worker processes poll it,
 * with slots of its own, so tenants' deliveries, relays and runs queued on the main queue never
 * delay a block read. Plain: workflows import it too.
 */
export const followerTaskQueue = (taskQueue: string) => `${taskQueue}-follower`;
