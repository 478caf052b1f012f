import { readFile } from 'node:fs/promises';
import { waitFor, type ManagedProcess } from '../../src/stack/process.ts';
import { spawnNeoflow } from '../support/neoflow-command.ts';

/**
 * One replica of the compose file's `api` or `worker` service: started with the environment the
 * file gives it, killed, stopped and started again like a container. Each start logs to a file
 * of its own (`<logPrefix>.<n>.log`).
 */
export class NeoflowService {
  private process: ManagedProcess | undefined;
  private starts = 0;
  /** Whether it serves now: a load balancer sends requests only to replicas that are up. */
  up = false;

  readonly kind: 'api' | 'worker';
  private readonly env: Record<string, string>;
  private readonly logPrefix: string;

  constructor(kind: 'api' | 'worker', env: Record<string, string>, logPrefix: string) {
    this.kind = kind;
    this.env = env;
    this.logPrefix = logPrefix;
  }

  get url(): string {
    return `http://127.0.0.1:${this.env.NEOFLOW_API_PORT}`;
  }

  get logFile(): string {
    return `${this.logPrefix}.${this.starts}.log`;
  }

  /** Starts it and waits until it is ready: the API healthy, the worker polling. */
  async start(): Promise<void> {
    this.starts++;
    const logFile = this.logFile;
    const started = spawnNeoflow(this.kind, this.env, logFile);
    this.process = started;
    const ready =
      this.kind === 'api'
        ? async () => ((await fetch(`${this.url}/v1/health`)).ok ? true : undefined)
        : async () =>
            (await readFile(logFile, 'utf8').catch(() => '')).includes('"msg":"polling"') ? true : undefined;
    await waitFor(`${this.kind} (log ${logFile})`, ready, { timeoutMs: 120_000, aborted: started.exited });
    this.up = true;
  }

  /** `kill -9`: no drain, no goodbye. */
  async kill(): Promise<void> {
    this.up = false;
    this.process?.child.kill('SIGKILL');
    await this.process?.exited;
  }

  /** What `docker compose stop` does: SIGTERM, then SIGKILL after the grace period (30 s for workers). */
  async stop(): Promise<void> {
    this.up = false;
    await this.process?.stop(30_000);
  }
}
