import { parentPort } from 'node:worker_threads';
import { stripTypes } from './typescript.ts';

/**
 * The thread that strips TypeScript for its process (type-stripper.ts): one code at a time, off
 * the event loop. A refusal that is not a syntax error (Node's stripper runs out of stack on deep
 * nesting, and may be left unusable for every later code) is answered, and the thread ends: its
 * host starts a fresh one for the next code.
 */
parentPort!.on('message', ({ id, code }: { id: number; code: string }) => {
  try {
    parentPort!.postMessage({ id, stripped: stripTypes(code) });
  } catch (error) {
    parentPort!.postMessage({ id, broken: error instanceof Error ? error.message : String(error) });
    process.exit(0);
  }
});
