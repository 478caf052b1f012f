import { hostname } from 'node:os';

/** What activities need from the process that runs them; later areas add their stores here. */
export interface ActivityDeps {
  workerId: string;
}

export const defaultWorkerId = () => `${hostname()}:${process.pid}`;

/** The worker's activities, closed over their dependencies (one factory, easy to test). */
export function createActivities(deps: ActivityDeps) {
  return {
    /** Proves a worker is polling and can run activities; `neoflow up` calls it once at start. */
    async ping(): Promise<{ workerId: string }> {
      return { workerId: deps.workerId };
    },
  };
}

export type Activities = ReturnType<typeof createActivities>;
