/**
 * The floor's worker as a process of its own, so that its CPU is measured apart from the bench's
 * (bench:run-cost's floor windows): `node bench/floor/floor-worker.ts <Temporal address>`. Prints
 * `polling` once it polls; stops on SIGTERM.
 */
import { connectFloor, startFloorWorker } from './floor.ts';

const connection = await connectFloor(process.argv[2]!);
const worker = await startFloorWorker(connection);
process.stdout.write('polling\n');
await new Promise((resolveSignal) => process.once('SIGTERM', resolveSignal));
await worker.stop();
await connection.close();
