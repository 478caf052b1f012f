/**
 * Start activities one loop keeps in flight (workflows/start-runs.ts). The follower's worker has
 * this many activity slots beside its block reads, so that starting runs never holds a read back.
 * Plain: the workflows and the worker read it.
 */
export const runStartsInFlight = 4;
