import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { z } from 'zod';

const port = z.coerce.number().int().min(1).max(65535);
const positiveInt = z.coerce.number().int().min(1);
const optionalUrl = (protocols: string[], example: string) =>
  z
    .string()
    .trim()
    .optional()
    .transform((value) => (value === '' ? undefined : value))
    .refine((value) => value === undefined || hasProtocol(value, protocols), {
      message: `must be a URL such as ${example}`,
    });

function hasProtocol(value: string, protocols: string[]): boolean {
  try {
    return protocols.includes(new URL(value).protocol);
  } catch {
    return false;
  }
}

const defaultBinDir = (env: NodeJS.ProcessEnv) =>
  join(env.XDG_CACHE_HOME || join(env.HOME || homedir(), '.cache'), 'neoflow', 'bin');

/** Every variable Neoflow reads; the README's configuration table mirrors this schema. */
const schema = z.object({
  NEOFLOW_ENV: z.enum(['development', 'production', 'test']).default('development'),
  NEOFLOW_LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error']).default('info'),
  NEOFLOW_DATA_DIR: z.string().min(1).default('.neoflow'),
  NEOFLOW_BIN_DIR: z.string().min(1).optional(),
  NEOFLOW_API_HOST: z.string().min(1).default('127.0.0.1'),
  NEOFLOW_API_PORT: port.default(8080),
  DATABASE_URL: optionalUrl(['postgres:', 'postgresql:'], 'postgres://user@host:5432/neoflow'),
  NEOFLOW_EMBEDDED_PG_PORT: port.default(5433),
  TEMPORAL_ADDRESS: z
    .string()
    .trim()
    .optional()
    .transform((value) => (value === '' ? undefined : value))
    .refine((value) => value === undefined || /^[\w.-]+:\d{1,5}$/.test(value), {
      message: 'must be host:port, such as 127.0.0.1:7233',
    }),
  TEMPORAL_NAMESPACE: z.string().min(1).default('default'),
  NEOFLOW_TEMPORAL_PORT: port.default(7233),
  NEOFLOW_TEMPORAL_UI_PORT: port.default(8233),
  NEOFLOW_TASK_QUEUE: z.string().min(1).default('neoflow'),
  NEOFLOW_WORKER_MAX_ACTIVITIES: positiveInt.default(32),
  NEOFLOW_WORKER_MAX_WORKFLOW_TASKS: positiveInt.default(32),
  NEO_RPC_URL: optionalUrl(['http:', 'https:'], 'http://127.0.0.1:20332'),
  NEOFLOW_NEO_RPC_PORT: port.default(20332),
});

type Env = z.infer<typeof schema>;

export interface Config {
  env: Env['NEOFLOW_ENV'];
  logLevel: Env['NEOFLOW_LOG_LEVEL'];
  dataDir: string;
  binDir: string;
  api: { host: string; port: number };
  postgres: { url: string | undefined; embeddedPort: number };
  temporal: {
    address: string | undefined;
    namespace: string;
    devPort: number;
    uiPort: number;
    taskQueue: string;
  };
  worker: { maxActivities: number; maxWorkflowTasks: number };
  neo: { rpcUrl: string | undefined; devRpcPort: number };
}

export class ConfigError extends Error {
  readonly variable: string;

  constructor(variable: string, problem: string) {
    super(`${variable} ${problem}`);
    this.name = 'ConfigError';
    this.variable = variable;
  }
}

/** Reads and validates the environment once; a bad value throws a ConfigError naming it. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const variable = String(issue.path[0] ?? 'environment');
    const value = env[variable];
    throw new ConfigError(
      variable,
      `is invalid (${value === undefined ? 'unset' : JSON.stringify(redact(variable, value))}): ${issue.message}`,
    );
  }
  const e = parsed.data;
  return {
    env: e.NEOFLOW_ENV,
    logLevel: e.NEOFLOW_LOG_LEVEL,
    dataDir: resolve(e.NEOFLOW_DATA_DIR),
    binDir: resolve(e.NEOFLOW_BIN_DIR ?? defaultBinDir(env)),
    api: { host: e.NEOFLOW_API_HOST, port: e.NEOFLOW_API_PORT },
    postgres: { url: e.DATABASE_URL, embeddedPort: e.NEOFLOW_EMBEDDED_PG_PORT },
    temporal: {
      address: e.TEMPORAL_ADDRESS,
      namespace: e.TEMPORAL_NAMESPACE,
      devPort: e.NEOFLOW_TEMPORAL_PORT,
      uiPort: e.NEOFLOW_TEMPORAL_UI_PORT,
      taskQueue: e.NEOFLOW_TASK_QUEUE,
    },
    worker: {
      maxActivities: e.NEOFLOW_WORKER_MAX_ACTIVITIES,
      maxWorkflowTasks: e.NEOFLOW_WORKER_MAX_WORKFLOW_TASKS,
    },
    neo: { rpcUrl: e.NEO_RPC_URL, devRpcPort: e.NEOFLOW_NEO_RPC_PORT },
  };
}

/** A database URL may carry a password: never echo it back. */
function redact(variable: string, value: string): string {
  if (variable !== 'DATABASE_URL') return value;
  return value.replace(/\/\/([^:/@]+):[^@]*@/, '//$1:***@');
}

/** For processes that run against services started elsewhere (api, worker, migrate). */
export function requireSetting<T>(value: T | undefined, variable: string): T {
  if (value === undefined)
    throw new ConfigError(variable, 'must be set for this command (`neoflow up` sets it for the processes it starts)');
  return value;
}
