import { hostname } from 'node:os';
import { Context, heartbeat } from '@temporalio/activity';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { NeoRpc } from '../src/chain/rpc.ts';
import { failExecution, runExecution } from '../src/functions/run-execution.ts';
import type { MasterKeys } from '../src/secrets/envelope.ts';
import type { Config } from '../src/config.ts';
import { createAutomationActivities } from './automations.ts';

/** What activities need from the process that runs them. */
export interface ActivityDeps {
  workerId: string;
  orm: MikroORM;
  masterKeys: MasterKeys;
  neo: NeoRpc;
  memoryLimitMb: number;
  automations: Config['automations'];
}

export const defaultWorkerId = () => `${hostname()}:${process.pid}`;

const heartbeatEveryMs = 2000;

/** The worker's activities, closed over their dependencies (one factory, easy to test). */
export function createActivities(deps: ActivityDeps) {
  return {
    ...createAutomationActivities(deps),

    /** Proves a worker is polling and can run activities; `neoflow up` calls it once at start. */
    async ping(): Promise<{ workerId: string }> {
      return { workerId: deps.workerId };
    },

    /**
     * Runs one function execution in the sandbox and stores its outcome in PostgreSQL. It
     * heartbeats while the code runs, so a worker that dies is noticed in seconds and the
     * execution is retried elsewhere rather than left running.
     */
    async runExecution(executionId: string): Promise<string> {
      const beat = setInterval(() => heartbeat(), heartbeatEveryMs);
      try {
        const signal = Context.current().cancellationSignal;
        return await runExecution({ ...deps, em: deps.orm.em.fork(), signal }, executionId);
      } finally {
        clearInterval(beat);
      }
    },

    async failExecution(executionId: string, message: string): Promise<void> {
      await failExecution(deps.orm.em.fork(), executionId, message);
    },
  };
}

export type Activities = ReturnType<typeof createActivities>;
