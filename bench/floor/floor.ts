import { fileURLToPath } from 'node:url';
import { Client } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { UnwatchedWorker } from '../../worker/unwatched-worker.ts';
import { floorActivities } from './activities.ts';

const taskQueue = 'neoflow-floor';

export interface Floor {
  /** Starts one floor workflow eagerly and awaits its result, as a client of this process would. */
  run(id: string): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Temporal's floor on the server at `address`: a worker of this process on a task queue of its own,
 * and a client on the worker's native connection, so starts are eager (the first workflow task
 * comes back in the start's answer) and the no-op runs as a local activity. No codec, no database.
 */
export async function startFloor(address: string): Promise<Floor> {
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const connection = await NativeConnection.connect({ address });
  // The workers Neoflow runs its workflows on, so that the floor is the fastest this machine does.
  const worker = await UnwatchedWorker.create({
    connection,
    taskQueue,
    workflowsPath: fileURLToPath(new URL('./workflows.ts', import.meta.url)),
    activities: floorActivities,
    enableNonLocalActivities: false,
  });
  const running = worker.run();
  const client = new Client({ connection });
  return {
    run: async (id) => {
      const handle = await client.workflow.start('floorWorkflow', {
        workflowId: id,
        taskQueue,
        requestEagerStart: true,
      });
      await handle.result();
    },
    stop: async () => {
      worker.shutdown();
      await running;
      await connection.close();
    },
  };
}
