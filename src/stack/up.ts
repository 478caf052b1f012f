import { fileURLToPath } from 'node:url';
import { requireSetting, type Config } from '../config.ts';
import { migrate, withOrm } from '../orm.ts';
import type { MasterKeys } from '../crypto/envelope.ts';
import { masterKeysIfSet } from '../crypto/master-keys.ts';
import { connectTemporal } from '../temporal/connect.ts';
import { ensureSearchAttributes } from '../temporal/search-attributes.ts';
import { newId } from '../ids.ts';
import type { PingWorkflow } from '../shared/workflow-signatures.ts';
import { neoComponent, postgresComponent, temporalComponent, type Component } from './components.ts';
import { assertPortsFree } from './preflight.ts';
import { spawnManaged, waitFor, type ManagedProcess } from './process.ts';
import { statusLine, timed } from './status.ts';

const cli = fileURLToPath(new URL('../../bin/neoflow.js', import.meta.url));
const shutdownBudgetMs = 9_000;

export interface Stack {
  apiUrl: string;
  stop(): Promise<void>;
}

/** Starts every component of the embedded default, then the worker and the API. */
export async function up(config: Config): Promise<Stack> {
  await assertPortsFree(config);
  const started: { apps: ManagedProcess[]; components: Component[] } = { apps: [], components: [] };
  const stop = () => stopAll(started.apps, started.components);
  try {
    started.components = await startComponents(config);
    const env = childEnv(config, started.components);
    await timed(
      'database',
      () => prepare(env, masterKeysIfSet(config)),
      (applied) => `migrations applied: ${applied.length || 'none pending'}`,
    );
    const worker = spawnChild('worker', env);
    const api = spawnChild('api', env);
    started.apps = [api, worker];
    const apiUrl = `http://${config.api.host}:${config.api.port}`;
    await timed(
      'api',
      () => waitForHealth(apiUrl, api),
      () => `${apiUrl}/v1/health`,
    );
    await timed(
      'worker',
      () => ping(env, config, worker),
      (id) => `polling task queue ${config.temporal.taskQueue} (${id})`,
    );
    return { apiUrl, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

const describe = (component: Component) => component.description;

/** The three services in parallel; if one fails, those that started are stopped again. */
async function startComponents(config: Config): Promise<Component[]> {
  const progress = (component: string) => (line: string) => statusLine(component, '..', line);
  const outcomes = await Promise.allSettled([
    timed('postgres', () => postgresComponent(config), describe),
    timed('temporal', () => temporalComponent(config, progress('temporal')), describe),
    timed('neo', () => neoComponent(config, progress('neo')), describe),
  ]);
  const components = outcomes.flatMap((outcome) => (outcome.status === 'fulfilled' ? [outcome.value] : []));
  const failed = outcomes.find((outcome) => outcome.status === 'rejected');
  if (failed) {
    await Promise.allSettled(components.map((component) => component.stop()));
    throw failed.reason;
  }
  return components;
}

function childEnv(config: Config, components: Component[]): NodeJS.ProcessEnv {
  const address = (name: Component['name']) => components.find((c) => c.name === name)!.address;
  return {
    ...process.env,
    DATABASE_URL: address('postgres'),
    TEMPORAL_ADDRESS: address('temporal'),
    NEO_RPC_URL: address('neo'),
    NEOFLOW_DATA_DIR: config.dataDir,
  };
}

function prepare(env: NodeJS.ProcessEnv, masterKeys: MasterKeys | undefined): Promise<string[]> {
  return withOrm(env.DATABASE_URL!, 'DATABASE_URL', (orm) => migrate(orm, masterKeys));
}

function spawnChild(command: 'api' | 'worker', env: NodeJS.ProcessEnv): ManagedProcess {
  return spawnManaged(command, process.execPath, {
    args: ['--no-node-snapshot', cli, command],
    env,
    output: 'inherit',
  });
}

async function waitForHealth(apiUrl: string, api: ManagedProcess) {
  await waitFor('the API', async () => ((await fetch(`${apiUrl}/v1/health`)).ok ? true : undefined), {
    timeoutMs: 60_000,
    intervalMs: 250,
    aborted: api.exited,
  });
}

/** Runs the ping workflow: proves the worker polls and runs activities, and registers attributes. */
async function ping(env: NodeJS.ProcessEnv, config: Config, worker: ManagedProcess): Promise<string> {
  const { connection, client } = await connectTemporal({
    address: env.TEMPORAL_ADDRESS!,
    namespace: config.temporal.namespace,
    payloadKey: requireSetting(config.secrets.payloadKey, 'NEOFLOW_PAYLOAD_KEY'),
    security: config.temporal.security,
  });
  try {
    await ensureSearchAttributes(connection, config.temporal.namespace);
    const run = client.workflow.execute<PingWorkflow>('pingWorkflow', {
      taskQueue: config.temporal.taskQueue,
      workflowId: newId('ping'),
      workflowExecutionTimeout: '60 seconds',
    });
    const exited = worker.exited.then((code) => Promise.reject(new Error(`the worker exited (${code})`)));
    const { workerId } = await Promise.race([run, exited]);
    return workerId;
  } finally {
    await connection.close();
  }
}

/** Stops the API and worker, then the services, within the budget; then kills what is left. */
async function stopAll(apps: ManagedProcess[], components: Component[]) {
  const appGraceMs = shutdownBudgetMs - 3_000;
  const inOrder = (async () => {
    await Promise.all(apps.map((app) => app.stop(appGraceMs)));
    await Promise.allSettled(components.map((component) => component.stop()));
  })();
  const deadline = new Promise<void>((resolveDeadline) => setTimeout(resolveDeadline, shutdownBudgetMs).unref());
  await Promise.race([inOrder, deadline]);
}
