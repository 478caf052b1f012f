import { spawn, type ChildProcess } from 'node:child_process';
import { neoflowArgsIn } from './neoflow-command.ts';

const readyLine = /Neoflow is up/;

export interface UpProcess {
  child: ChildProcess;
  output(): string;
  /** Ctrl-C: SIGINT to the whole process group; resolves with the exit code and how long stopping took. */
  stop(): Promise<{ code: number | null; ms: number }>;
}

/**
 * Runs `neoflow up` with the given environment and waits for its ready line; `checkout`: the root
 * of another checkout whose `neoflow` to run (a benchmark's base commit), else this one's.
 */
export async function startNeoflowUp(
  env: Record<string, string>,
  timeoutMs = 300_000,
  checkout?: string,
): Promise<UpProcess> {
  // Its own process group, as a terminal gives a foreground command: Ctrl-C signals the group.
  const child = spawn(process.execPath, neoflowArgsIn(checkout, 'up'), {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  const exited = new Promise<number | null>((resolveExit) => child.once('exit', (code) => resolveExit(code)));
  await new Promise<void>((resolveReady, reject) => {
    const timer = setTimeout(() => reject(new Error(`neoflow up was not ready in time:\n${output}`)), timeoutMs);
    let ready = false;
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      // Looked for only until it comes: a stack logging at info for minutes (a benchmark) made each
      // chunk scan the whole output so far, stalling the loop of the process measuring it.
      if (ready || !readyLine.test(output)) return;
      ready = true;
      clearTimeout(timer);
      resolveReady();
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`neoflow up exited with ${code}:\n${output}`));
    });
  });
  return {
    child,
    output: () => output,
    stop: async () => {
      const started = performance.now();
      process.kill(-child.pid!, 'SIGINT');
      const code = await exited;
      return { code, ms: performance.now() - started };
    },
  };
}
