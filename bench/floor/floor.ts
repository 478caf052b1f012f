import { fileURLToPath } from 'node:url';
import { Client } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { UnwatchedWorker } from '../../worker/unwatched-worker.ts';
import { floorActivities } from './activities.ts';

export const floorTaskQueue = 'neoflow-floor';

export interface Floor {
  /** Starts one floor workflow eagerly and awaits its result, as a client of this process would. */
  run(id: string): Promise<void>;
  stop(): Promise<void>;
}

/** A native connection to the server at `address`, the process's runtime logging warnings only. */
export async function connectFloor(address: string) {
  Runtime.install({ logger: new DefaultLogger('WARN') });
  return NativeConnection.connect({ address });
}

/**
 * The floor's worker on `connection` (made by `connectFloor`): the workers Neoflow runs its
 * workflows on, polling a task queue of their own, so that the floor is the fastest this machine
 * does. `stop` ends it.
 */
export async function startFloorWorker(connection: NativeConnection) {
  const worker = await UnwatchedWorker.create({
    connection,
    taskQueue: floorTaskQueue,
    workflowsPath: fileURLToPath(new URL('./workflows.ts', import.meta.url)),
    activities: floorActivities,
    enableNonLocalActivities: false,
  });
  const running = worker.run();
  return {
    stop: async () => {
      worker.shutdown();
      await running;
    },
  };
}

/**
 * Temporal's floor on the server at `address`: a worker of this process on a task queue of its own,
 * and a client on the worker's native connection, so starts are eager (the first workflow task
 * comes back in the start's answer) and the no-op runs as a local activity. No codec, no database.
 */
export async function startFloor(address: string): Promise<Floor> {
  const connection = await connectFloor(address);
  const worker = await startFloorWorker(connection);
  const client = new Client({ connection });
  return {
    run: async (id) => {
      const handle = await client.workflow.start('floorWorkflow', {
        workflowId: id,
        taskQueue: floorTaskQueue,
        requestEagerStart: true,
      });
      await handle.result();
    },
    stop: async () => {
      await worker.stop();
      await connection.close();
    },
  };
}
