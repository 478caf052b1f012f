import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';

export interface ManagedProcess {
  readonly name: string;
  readonly child: ChildProcess;
  /** Resolves with the exit code (or signal name) when the process ends. */
  readonly exited: Promise<number | string>;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves once the process is gone. */
  stop(graceMs?: number): Promise<void>;
}

interface SpawnOptions {
  args: string[];
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** Where stdout and stderr go: a file path, or the word 'inherit' for the terminal. */
  output: string;
  /** Run as this user (a root parent starting a program that refuses root). */
  user?: { uid: number; gid: number };
  /** The signal that asks for a clean, prompt shutdown; SIGTERM unless the program says otherwise. */
  stopSignal?: NodeJS.Signals;
}

export function spawnManaged(name: string, command: string, options: SpawnOptions): ManagedProcess {
  const toFile = options.output !== 'inherit';
  const child = spawn(command, options.args, {
    cwd: options.cwd,
    env: options.env ?? process.env,
    stdio: toFile ? ['ignore', 'pipe', 'pipe'] : ['ignore', 'inherit', 'inherit'],
    // A process group of its own: a terminal's Ctrl-C reaches only `neoflow up`, which stops the
    // API and worker first (they drain what runs) and the services they report to after them.
    detached: true,
    ...options.user,
  });
  if (toFile) {
    const log = createWriteStream(options.output, { flags: 'a' });
    // Two streams share one file: neither may end it; the process exiting does.
    child.stdout?.pipe(log, { end: false });
    child.stderr?.pipe(log, { end: false });
    child.once('close', () => log.end());
  }
  const exited = new Promise<number | string>((resolveExit, rejectSpawn) => {
    child.once('error', rejectSpawn);
    child.once('exit', (code, signal) => resolveExit(code ?? signal ?? 'unknown'));
  });
  exited.catch(() => undefined);
  const stopSignal = options.stopSignal ?? 'SIGTERM';
  return { name, child, exited, stop: (graceMs = 8000) => stopProcess(child, exited, stopSignal, graceMs) };
}

async function stopProcess(child: ChildProcess, exited: Promise<unknown>, signal: NodeJS.Signals, graceMs: number) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill(signal);
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  try {
    await exited;
  } catch {
    // The process never started: nothing to stop.
  } finally {
    clearTimeout(timer);
  }
}

/** Polls `probe` until it returns a value, or fails with `what` after `timeoutMs`. */
export async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  options: { timeoutMs: number; intervalMs?: number; aborted?: Promise<unknown> },
): Promise<T> {
  const deadline = Date.now() + options.timeoutMs;
  let lastError: unknown;
  let abortedWith: unknown;
  options.aborted?.then(
    (value) => (abortedWith ??= value ?? 'exited'),
    (error: unknown) => (abortedWith ??= error),
  );
  while (Date.now() < deadline) {
    if (abortedWith !== undefined) throw new Error(`${what}: the process exited (${describe(abortedWith)})`);
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (error) {
      lastError = error;
    }
    await new Promise((r) => setTimeout(r, options.intervalMs ?? 200));
  }
  const cause = lastError === undefined ? '' : ` (last error: ${describe(lastError)})`;
  throw new Error(`${what} did not become ready within ${Math.round(options.timeoutMs / 1000)} s${cause}`);
}

function describe(value: unknown): string {
  return value instanceof Error ? value.message : String(value);
}
