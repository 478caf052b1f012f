import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { parseEgressAllow } from './egress/egress-policy.ts';
import { parseRate } from './ratelimit/rate.ts';
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

const listOf = (value: string) => value.split(',').map((item) => item.trim());

const keyHint = 'must be 32 random bytes in base64 (openssl rand -base64 32)';
const isKey = (value: string) => /^[A-Za-z0-9+/]{43}=$/.test(value) && Buffer.from(value, 'base64').length === 32;
const optionalKey = optionalText
  .refine((value) => value === undefined || isKey(value), { message: keyHint })
  .transform((value) => (value === undefined ? undefined : Buffer.from(value, 'base64')));
/** A comma-separated list of keys, in order. */
const keyList = optionalText
  .refine((value) => value === undefined || listOf(value).every(isKey), {
    message: `must be a comma-separated list of keys that each ${keyHint.slice(5)}`,
  })
  .transform((value) => (value === undefined ? [] : listOf(value).map((key) => Buffer.from(key, 'base64'))));
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
const optionalOrigins = optionalText.refine((value) => value === undefined || listOf(value).every(isOrigin), {
  message: 'must be comma-separated origins (no path), such as https://temporal.example.com',
});

const toMs = (value: number) => value * 1000;

/** Every variable Neoflow reads, said once: the README's configuration table is checked against it. */
export const variables = {
  NEOFLOW_ENV: z.enum(['development', 'production', 'test']).default('development'),
  NEOFLOW_LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error']).default('info'),
  NEOFLOW_DATA_DIR: z.string().min(1).default('.neoflow'),
  NEOFLOW_BIN_DIR: z.string().min(1).optional(),
  NEOFLOW_API_HOST: z.string().min(1).default('127.0.0.1'),
  NEOFLOW_API_PORT: port.default(8080),
  NEOFLOW_API_URL: optionalUrl(['http:', 'https:'], 'https://neoflow.example.com'),
  NEOFLOW_API_KEY: optionalText,
  DATABASE_URL: optionalUrl(['postgres:', 'postgresql:'], 'postgres://user@host:5432/neoflow'),
  NEOFLOW_EMBEDDED_PG_PORT: port.default(5433),
  TEMPORAL_ADDRESS: optionalText.refine((value) => value === undefined || /^[\w.-]+:\d{1,5}$/.test(value), {
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
  NEOFLOW_PREVIOUS_MASTER_KEYS: keyList,
  NEOFLOW_PAYLOAD_KEY: optionalKey,
  NEOFLOW_PREVIOUS_PAYLOAD_KEYS: keyList,
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
  NEOFLOW_RELAY_ATTEMPT_SECONDS: positiveInt.default(1500),
  NEOFLOW_REPLAY_BLOCKS_PER_SECOND: positiveInt.default(200),
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
    .transform((value, context) => {
      const rate = parseRate(value);
      if (rate === undefined)
        context.addIssue({ code: 'custom', message: 'must be <requests>/<seconds>s, such as 100/10s' });
      return rate ?? z.NEVER;
    }),
};

type Variable = keyof typeof variables;

/** The system's variables Neoflow follows: where the Go binaries are cached by default. */
const cacheHome = { HOME: optionalText, XDG_CACHE_HOME: optionalText };

/** Loose: Temporal's own variables (TLS, API key, gRPC headers) are read by its SDK's reader. */
const schema = z
  .looseObject({ ...variables, ...cacheHome })
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
  })
  .transform((e, context) => ({
    env: e.NEOFLOW_ENV,
    logLevel: e.NEOFLOW_LOG_LEVEL,
    dataDir: resolve(e.NEOFLOW_DATA_DIR),
    binDir: resolve(
      e.NEOFLOW_BIN_DIR ?? join(e.XDG_CACHE_HOME ?? join(e.HOME ?? homedir(), '.cache'), 'neoflow', 'bin'),
    ),
    api: { host: e.NEOFLOW_API_HOST, port: e.NEOFLOW_API_PORT },
    /** Where `neoflow fn deploy` sends its requests, and the API key it sends them with. */
    client: {
      apiUrl: e.NEOFLOW_API_URL ?? `http://${e.NEOFLOW_API_HOST}:${e.NEOFLOW_API_PORT}`,
      apiKey: e.NEOFLOW_API_KEY,
    },
    postgres: { url: e.DATABASE_URL, embeddedPort: e.NEOFLOW_EMBEDDED_PG_PORT },
    temporal: {
      address: e.TEMPORAL_ADDRESS,
      namespace: e.TEMPORAL_NAMESPACE,
      devPort: e.NEOFLOW_TEMPORAL_PORT,
      uiPort: e.NEOFLOW_TEMPORAL_UI_PORT,
      taskQueue: e.NEOFLOW_TASK_QUEUE,
      /** TLS, API key and gRPC headers for a real cluster, from Temporal's own variables. */
      security: temporalSecurity(e, context),
    },
    worker: {
      maxActivities: e.NEOFLOW_WORKER_MAX_ACTIVITIES,
      maxWorkflowTasks: e.NEOFLOW_WORKER_MAX_WORKFLOW_TASKS,
      /** Function runs at once, all accounts together: what bounds the isolates of a process. */
      maxRuns: e.NEOFLOW_WORKER_MAX_RUNS,
      sandboxMemoryMb: e.NEOFLOW_SANDBOX_MEMORY_MB,
      /** Calls to `context.services` one run may make. */
      sandboxServiceCalls: e.NEOFLOW_SANDBOX_SERVICE_CALLS,
      /** Where a worker process serves `/metrics`; 0 for nowhere. */
      metricsPort: e.NEOFLOW_WORKER_METRICS_PORT,
      runsPerAccount: e.NEOFLOW_ACCOUNT_CONCURRENCY,
      /**
       * Webhook deliveries, notifications, contract prepares and relays of one account this process
       * runs at once: what keeps one account's slow receivers from holding every activity slot.
       */
      activitiesPerAccount: e.NEOFLOW_ACCOUNT_ACTIVITIES,
    },
    neo: { rpcUrl: e.NEO_RPC_URL, devRpcPort: e.NEOFLOW_NEO_RPC_PORT },
    /** Unset outside production until `neoflow up` generates development values. */
    secrets: {
      masterKey: e.NEOFLOW_MASTER_KEY,
      previousMasterKeys: e.NEOFLOW_PREVIOUS_MASTER_KEYS,
      payloadKey: e.NEOFLOW_PAYLOAD_KEY,
      /** Earlier payload keys: what they sealed still decodes while a rotation completes. */
      previousPayloadKeys: e.NEOFLOW_PREVIOUS_PAYLOAD_KEYS,
      operatorToken: e.NEOFLOW_OPERATOR_TOKEN,
      /** What Prometheus presents for `/metrics`; unset, the operator token (as before it existed). */
      metricsToken: e.NEOFLOW_METRICS_TOKEN,
    },
    /** What one account may start: each refused with a 4xx that names the limit. */
    quotas: {
      automationsPerAccount: e.NEOFLOW_ACCOUNT_AUTOMATIONS,
      /** The shortest interval between two fires of a schedule, and between two reads of a price. */
      shortestScheduleSeconds: e.NEOFLOW_SHORTEST_SCHEDULE_SECONDS,
      shortestPollSeconds: e.NEOFLOW_SHORTEST_POLL_SECONDS,
      /** Executions of one account recorded and not yet ended; an invoke beyond them answers 429. */
      queuedExecutionsPerAccount: e.NEOFLOW_ACCOUNT_QUEUED_EXECUTIONS,
    },
    /** Default per-key request rate. */
    rateLimit: e.NEOFLOW_RATE_LIMIT,
    /** What tenants' outbound requests (price sources) may reach inside the service's network. */
    egress: e.NEOFLOW_EGRESS_ALLOW,
    /** Browser origins (the Temporal Web UI) whose pages may read the codec endpoint's answers (CORS); no credential. */
    codec: {
      // By default, the dev server's Web UI under both names a browser may use for it.
      allowedOrigins: e.NEOFLOW_CODEC_ALLOWED_ORIGINS
        ? listOf(e.NEOFLOW_CODEC_ALLOWED_ORIGINS)
        : [`http://127.0.0.1:${e.NEOFLOW_TEMPORAL_UI_PORT}`, `http://localhost:${e.NEOFLOW_TEMPORAL_UI_PORT}`],
    },
    /**
     * The recovery sweep: how often it looks for executions recorded but perhaps never started, and
     * how long such an execution has had to start before it counts as one.
     */
    recovery: { intervalMs: toMs(e.NEOFLOW_RECOVERY_SECONDS), graceMs: toMs(e.NEOFLOW_RECOVERY_SECONDS) },
    /** Defaults of automations' triggers; a price trigger may set its own interval and age. */
    automations: {
      /** How late a schedule may still fire a missed time (after downtime). */
      catchupWindowMs: toMs(e.NEOFLOW_SCHEDULE_CATCHUP_SECONDS),
      pricePollMs: toMs(e.NEOFLOW_PRICE_POLL_SECONDS),
      priceMaxAgeMs: toMs(e.NEOFLOW_PRICE_MAX_AGE_SECONDS),
      pricePreset: e.NEOFLOW_PRICE_SOURCE,
      /**
       * Price polls in a row that read no usable price, or checks in a row that found a blockchain
       * trigger's contract not deployed, before the automation moves to `error`.
       */
      triggerFailureLimit: e.NEOFLOW_TRIGGER_FAILURES,
      /** How often the block follower checks that the watched contracts are deployed. */
      contractCheckMs: toMs(e.NEOFLOW_CONTRACT_CHECK_SECONDS),
      /**
       * How long one attempt of a contract run's relay looks for its transaction before it ends and
       * Temporal retries it (without limit): under the relay activity's 30-minute timeout.
       */
      relayAttemptMs: toMs(e.NEOFLOW_RELAY_ATTEMPT_SECONDS),
      /** The most blocks one replay reads a second: the node serves live following first. */
      replayBlocksPerSecond: e.NEOFLOW_REPLAY_BLOCKS_PER_SECOND,
      /** Telegram's Bot API, where telegram notifications go (through the egress guard). */
      telegramApiUrl: e.NEOFLOW_TELEGRAM_API_URL,
    },
  }));

export type Config = z.output<typeof schema>;

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
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const variable = String(issue.path[0] ?? 'environment');
  if (issue.code === 'custom' && typeof issue.params?.problem === 'string')
    throw new ConfigError(variable, issue.params.problem);
  const value = env[variable];
  throw new ConfigError(
    variable,
    `is invalid (${value === undefined ? 'unset' : JSON.stringify(redact(variable, value))}): ${issue.message}`,
  );
}

/** Read as every Temporal SDK reads it; a problem is the whole TLS setting's, named by a problem of its own. */
function temporalSecurity(env: Record<string, unknown>, context: z.RefinementCtx): ConnectionSecurity {
  const strings = Object.entries(env).filter((entry): entry is [string, string] => typeof entry[1] === 'string');
  try {
    return connectionSecurity(Object.fromEntries(strings));
  } catch (error) {
    const problem = `settings are invalid: ${error instanceof Error ? error.message : String(error)}`;
    context.addIssue({ code: 'custom', path: ['TEMPORAL_TLS'], message: problem, params: { problem } });
    return z.NEVER;
  }
}

/** Keys, tokens and a database URL's password are never echoed back. */
function redact(variable: string, value: string): string {
  if (variable === 'DATABASE_URL') return value.replace(/\/\/([^:/@]+):[^@]*@/, '//$1:***@');
  return /KEY|TOKEN/.test(variable) ? '***' : value;
}

/** For processes that run against services started elsewhere (api, worker, migrate). */
export function requireSetting<T>(value: T | undefined, variable: Variable): T {
  if (value === undefined)
    throw new ConfigError(variable, 'must be set for this command (`neoflow up` sets it for the processes it starts)');
  return value;
}
