import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { parseEgressAllow, type EgressAllowList } from './egress/egress-policy.ts';
import { parseRate, type Rate } from './ratelimit/rate.ts';
import { connectionSecurity, type ConnectionSecurity } from './temporal/connection-security.ts';

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

const optionalText = z
  .string()
  .trim()
  .optional()
  .transform((value) => (value === '' ? undefined : value));

const keyHint = 'must be 32 random bytes in base64 (openssl rand -base64 32)';
const isKey = (value: string) => /^[A-Za-z0-9+/]{43}=$/.test(value) && Buffer.from(value, 'base64').length === 32;
const optionalKey = optionalText.refine((value) => value === undefined || isKey(value), { message: keyHint });
const optionalToken = optionalText.refine((value) => value === undefined || value.length >= 24, {
  message: 'must be at least 24 characters (openssl rand -base64 24)',
});

/** Secrets a production deployment must be given; development generates them (`neoflow up`). */
const productionSecrets = ['NEOFLOW_MASTER_KEY', 'NEOFLOW_PAYLOAD_KEY', 'NEOFLOW_OPERATOR_TOKEN'] as const;

function hasProtocol(value: string, protocols: string[]): boolean {
  try {
    return protocols.includes(new URL(value).protocol);
  } catch {
    return false;
  }
}

const isOrigin = (value: string) => hasProtocol(value, ['http:', 'https:']) && new URL(value).origin === value;
const listOf = (value: string) => value.split(',').map((item) => item.trim());
const optionalOrigins = optionalText.refine((value) => value === undefined || listOf(value).every(isOrigin), {
  message: 'must be comma-separated origins (no path), such as https://temporal.example.com',
});

const defaultBinDir = (env: NodeJS.ProcessEnv) =>
  join(env.XDG_CACHE_HOME || join(env.HOME || homedir(), '.cache'), 'neoflow', 'bin');

/** Every variable Neoflow reads; the README's configuration table mirrors this schema. */
const schema = z
  .object({
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
    NEOFLOW_WORKER_MAX_WORKFLOW_TASKS: positiveInt.default(512),
    NEOFLOW_WORKER_MAX_RUNS: positiveInt.default(128),
    // 0: no metrics endpoint.
    NEOFLOW_WORKER_METRICS_PORT: z.coerce.number().int().min(0).max(65535).default(9464),
    NEOFLOW_ACCOUNT_CONCURRENCY: positiveInt.default(4),
    NEOFLOW_ACCOUNT_ACTIVITIES: positiveInt.default(4),
    NEOFLOW_ACCOUNT_AUTOMATIONS: positiveInt.default(1000),
    NEOFLOW_ACCOUNT_QUEUED_EXECUTIONS: positiveInt.default(1000),
    // A 5-field cron fires at most once a minute: a larger floor would need the minute fields read too.
    NEOFLOW_SHORTEST_SCHEDULE_SECONDS: z.coerce.number().int().min(1).max(60).default(10),
    NEOFLOW_SHORTEST_POLL_SECONDS: positiveInt.default(10),
    NEO_RPC_URL: optionalUrl(['http:', 'https:'], 'http://127.0.0.1:20332'),
    NEOFLOW_NEO_RPC_PORT: port.default(20332),
    NEOFLOW_MASTER_KEY: optionalKey,
    NEOFLOW_PREVIOUS_MASTER_KEYS: optionalText.refine(
      (value) => value === undefined || value.split(',').every((key) => isKey(key.trim())),
      { message: `must be a comma-separated list of keys that each ${keyHint.slice(5)}` },
    ),
    NEOFLOW_PAYLOAD_KEY: optionalKey,
    NEOFLOW_PREVIOUS_PAYLOAD_KEYS: optionalText.refine(
      (value) => value === undefined || value.split(',').every((key) => isKey(key.trim())),
      { message: `must be a comma-separated list of keys that each ${keyHint.slice(5)}` },
    ),
    NEOFLOW_OPERATOR_TOKEN: optionalToken,
    NEOFLOW_METRICS_TOKEN: optionalToken,
    NEOFLOW_CODEC_ALLOWED_ORIGINS: optionalOrigins,
    NEOFLOW_SANDBOX_MEMORY_MB: positiveInt.default(128),
    NEOFLOW_SANDBOX_SERVICE_CALLS: positiveInt.default(1000),
    NEOFLOW_SCHEDULE_CATCHUP_SECONDS: positiveInt.default(60),
    NEOFLOW_PRICE_POLL_SECONDS: positiveInt.default(30),
    NEOFLOW_PRICE_MAX_AGE_SECONDS: positiveInt.default(300),
    NEOFLOW_PRICE_SOURCE: z.enum(['coingecko', 'binance']).default('coingecko'),
    NEOFLOW_TELEGRAM_API_URL: z.url({ protocol: /^https?$/ }).default('https://api.telegram.org'),
    NEOFLOW_RECOVERY_SECONDS: positiveInt.default(30),
    NEOFLOW_TRIGGER_FAILURES: positiveInt.default(10),
    NEOFLOW_CONTRACT_CHECK_SECONDS: positiveInt.default(30),
    NEOFLOW_EGRESS_ALLOW: z
      .string()
      .default('')
      .transform((value, context) => {
        try {
          return parseEgressAllow(value);
        } catch (error) {
          context.addIssue({ code: 'custom', message: (error as Error).message });
          return z.NEVER;
        }
      }),
    NEOFLOW_RATE_LIMIT: z
      .string()
      .default('100/10s')
      .refine((value) => parseRate(value) !== undefined, { message: 'must be <requests>/<seconds>s, such as 100/10s' }),
  })
  .superRefine((env, context) => {
    if (env.NEOFLOW_PRICE_POLL_SECONDS < env.NEOFLOW_SHORTEST_POLL_SECONDS) {
      context.addIssue({
        code: 'custom',
        path: ['NEOFLOW_PRICE_POLL_SECONDS'],
        message: `must be at least NEOFLOW_SHORTEST_POLL_SECONDS (${env.NEOFLOW_SHORTEST_POLL_SECONDS})`,
      });
    }
    if (env.NEOFLOW_METRICS_TOKEN !== undefined && env.NEOFLOW_METRICS_TOKEN === env.NEOFLOW_OPERATOR_TOKEN) {
      context.addIssue({
        code: 'custom',
        path: ['NEOFLOW_METRICS_TOKEN'],
        message: 'must differ from NEOFLOW_OPERATOR_TOKEN, which also decodes payloads',
      });
    }
    if (env.NEOFLOW_ENV !== 'production') return;
    for (const variable of productionSecrets) {
      if (env[variable] === undefined)
        context.addIssue({ code: 'custom', path: [variable], message: 'must be set in production' });
    }
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
    /** TLS, API key and gRPC headers for a real cluster, from Temporal's own variables. */
    security: ConnectionSecurity;
  };
  worker: {
    maxActivities: number;
    maxWorkflowTasks: number;
    /** Function runs at once, all accounts together: what bounds the isolates of a process. */
    maxRuns: number;
    sandboxMemoryMb: number;
    /** Calls to `context.services` one run may make. */
    sandboxServiceCalls: number;
    runsPerAccount: number;
    /**
     * Webhook deliveries, notifications, contract prepares and relays of one account this process
     * runs at once: what keeps one account's slow receivers from holding every activity slot.
     */
    activitiesPerAccount: number;
    /** Where a worker process serves `/metrics`; 0 for nowhere. */
    metricsPort: number;
  };
  neo: { rpcUrl: string | undefined; devRpcPort: number };
  /** Unset outside production until `neoflow up` generates development values. */
  secrets: {
    masterKey: Buffer | undefined;
    previousMasterKeys: Buffer[];
    payloadKey: Buffer | undefined;
    /** Earlier payload keys: what they sealed still decodes while a rotation completes. */
    previousPayloadKeys: Buffer[];
    operatorToken: string | undefined;
    /** What Prometheus presents for `/metrics`; unset, the operator token (as before it existed). */
    metricsToken: string | undefined;
  };
  /** What one account may start: each refused with a 4xx that names the limit. */
  quotas: {
    automationsPerAccount: number;
    /** The shortest interval between two fires of a schedule, and between two reads of a price. */
    shortestScheduleSeconds: number;
    shortestPollSeconds: number;
    /** Executions of one account recorded and not yet ended; an invoke beyond them answers 429. */
    queuedExecutionsPerAccount: number;
  };
  /** Default per-key request rate. */
  rateLimit: Rate;
  /** What tenants' outbound requests (price sources) may reach inside the service's network. */
  egress: EgressAllowList;
  /** Browser origins (the Temporal Web UI) whose pages may read the codec endpoint's answers (CORS); no credential. */
  codec: { allowedOrigins: string[] };
  /**
   * The recovery sweep: how often it looks for executions recorded but perhaps never started, and
   * how long such an execution has had to start before it counts as one.
   */
  recovery: { intervalMs: number; graceMs: number };
  /** Defaults of automations' triggers; a price trigger may set its own interval and age. */
  automations: {
    /** How late a schedule may still fire a missed time (after downtime). */
    catchupWindowMs: number;
    pricePollMs: number;
    priceMaxAgeMs: number;
    pricePreset: Env['NEOFLOW_PRICE_SOURCE'];
    /**
     * Price polls in a row that read no usable price, or checks in a row that found a blockchain
     * trigger's contract not deployed, before the automation moves to `error`.
     */
    triggerFailureLimit: number;
    /** How often the block follower checks that the watched contracts are deployed. */
    contractCheckMs: number;
    /** Telegram's Bot API, where telegram notifications go (through the egress guard). */
    telegramApiUrl: string;
  };
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
      security: temporalSecurity(env),
    },
    worker: {
      maxActivities: e.NEOFLOW_WORKER_MAX_ACTIVITIES,
      maxWorkflowTasks: e.NEOFLOW_WORKER_MAX_WORKFLOW_TASKS,
      maxRuns: e.NEOFLOW_WORKER_MAX_RUNS,
      sandboxMemoryMb: e.NEOFLOW_SANDBOX_MEMORY_MB,
      sandboxServiceCalls: e.NEOFLOW_SANDBOX_SERVICE_CALLS,
      metricsPort: e.NEOFLOW_WORKER_METRICS_PORT,
      runsPerAccount: e.NEOFLOW_ACCOUNT_CONCURRENCY,
      activitiesPerAccount: e.NEOFLOW_ACCOUNT_ACTIVITIES,
    },
    neo: { rpcUrl: e.NEO_RPC_URL, devRpcPort: e.NEOFLOW_NEO_RPC_PORT },
    secrets: {
      masterKey: decodeKey(e.NEOFLOW_MASTER_KEY),
      previousMasterKeys: keyList(e.NEOFLOW_PREVIOUS_MASTER_KEYS),
      payloadKey: decodeKey(e.NEOFLOW_PAYLOAD_KEY),
      previousPayloadKeys: keyList(e.NEOFLOW_PREVIOUS_PAYLOAD_KEYS),
      operatorToken: e.NEOFLOW_OPERATOR_TOKEN,
      metricsToken: e.NEOFLOW_METRICS_TOKEN,
    },
    quotas: {
      automationsPerAccount: e.NEOFLOW_ACCOUNT_AUTOMATIONS,
      shortestScheduleSeconds: e.NEOFLOW_SHORTEST_SCHEDULE_SECONDS,
      shortestPollSeconds: e.NEOFLOW_SHORTEST_POLL_SECONDS,
      queuedExecutionsPerAccount: e.NEOFLOW_ACCOUNT_QUEUED_EXECUTIONS,
    },
    rateLimit: parseRate(e.NEOFLOW_RATE_LIMIT)!,
    egress: e.NEOFLOW_EGRESS_ALLOW,
    codec: { allowedOrigins: codecOrigins(e.NEOFLOW_CODEC_ALLOWED_ORIGINS, e.NEOFLOW_TEMPORAL_UI_PORT) },
    recovery: { intervalMs: e.NEOFLOW_RECOVERY_SECONDS * 1000, graceMs: e.NEOFLOW_RECOVERY_SECONDS * 1000 },
    automations: {
      catchupWindowMs: e.NEOFLOW_SCHEDULE_CATCHUP_SECONDS * 1000,
      pricePollMs: e.NEOFLOW_PRICE_POLL_SECONDS * 1000,
      priceMaxAgeMs: e.NEOFLOW_PRICE_MAX_AGE_SECONDS * 1000,
      pricePreset: e.NEOFLOW_PRICE_SOURCE,
      triggerFailureLimit: e.NEOFLOW_TRIGGER_FAILURES,
      contractCheckMs: e.NEOFLOW_CONTRACT_CHECK_SECONDS * 1000,
      telegramApiUrl: e.NEOFLOW_TELEGRAM_API_URL,
    },
  };
}

function temporalSecurity(env: NodeJS.ProcessEnv): ConnectionSecurity {
  try {
    return connectionSecurity(env);
  } catch (error) {
    throw new ConfigError(
      'TEMPORAL_TLS',
      `settings are invalid: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}

/** By default, the dev server's Web UI under both names a browser may use for it. */
function codecOrigins(value: string | undefined, uiPort: number): string[] {
  return value ? listOf(value) : [`http://127.0.0.1:${uiPort}`, `http://localhost:${uiPort}`];
}

function decodeKey(value: string | undefined): Buffer | undefined {
  return value ? Buffer.from(value, 'base64') : undefined;
}

/** A comma-separated list of keys (validated by the schema), in order. */
const keyList = (value: string | undefined) => (value ?? '').split(',').flatMap((key) => decodeKey(key.trim()) ?? []);

/** Keys, tokens and a database URL's password are never echoed back. */
function redact(variable: string, value: string): string {
  if (variable === 'DATABASE_URL') return value.replace(/\/\/([^:/@]+):[^@]*@/, '//$1:***@');
  return /KEY|TOKEN/.test(variable) ? '***' : value;
}

/** For processes that run against services started elsewhere (api, worker, migrate). */
export function requireSetting<T>(value: T | undefined, variable: string): T {
  if (value === undefined)
    throw new ConfigError(variable, 'must be set for this command (`neoflow up` sets it for the processes it starts)');
  return value;
}
