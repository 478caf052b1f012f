import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { environmentShape, listOf, nested, optionalText, read } from './config-settings.ts';
import { parseEgressAllow } from './egress/egress-policy.ts';
import { optionalReceiptKey, publicKeyList } from './receipt-settings.ts';
import { rateSetting } from './ratelimit/rate-setting.ts';
import { connectionSecurity, type ConnectionSecurity } from './net/connection-security.ts';
import { neoSettingIssues, parseNeoNetworks, shorthandNetwork } from './net/neo-networks.ts';

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
/** A number of seconds in the environment, in milliseconds in the configuration. */
const secondsAsMs = (fallback: number) => positiveInt.default(fallback).transform(toMs);

const recoverySeconds = read('NEOFLOW_RECOVERY_SECONDS', secondsAsMs(30));

/**
 * Every setting, said once: where it sits in the configuration and the variable it is read from.
 * Unset optional values a few lines below fill in (`configSchema`) are marked so.
 */
const settings = {
  env: read('NEOFLOW_ENV', z.enum(['development', 'production', 'test']).default('development')),
  logLevel: read('NEOFLOW_LOG_LEVEL', z.enum(['debug', 'info', 'warn', 'error']).default('info')),
  dataDir: read(
    'NEOFLOW_DATA_DIR',
    z
      .string()
      .min(1)
      .default('.neoflow')
      .transform((dir) => resolve(dir)),
  ),
  /** Where the Go binaries are cached; unset, under the user's cache directory. */
  binDir: read('NEOFLOW_BIN_DIR', z.string().min(1).optional()),
  api: {
    host: read('NEOFLOW_API_HOST', z.string().min(1).default('127.0.0.1')),
    port: read('NEOFLOW_API_PORT', port.default(8080)),
  },
  /** The web console (docs/console.md): where it links a transaction, the hash appended. */
  console: {
    explorerUrl: read('NEOFLOW_EXPLORER_URL', optionalUrl(['http:', 'https:'], 'https://explorer.example.com/tx/')),
  },
  /** Where `neoflow fn deploy` sends its requests (unset, this API), and the API key it sends them with. */
  client: {
    apiUrl: read('NEOFLOW_API_URL', optionalUrl(['http:', 'https:'], 'https://neoflow.example.com')),
    apiKey: read('NEOFLOW_API_KEY', optionalText),
  },
  postgres: {
    url: read('DATABASE_URL', optionalUrl(['postgres:', 'postgresql:'], 'postgres://user@host:5432/neoflow')),
    embeddedPort: read('NEOFLOW_EMBEDDED_PG_PORT', port.default(5433)),
  },
  temporal: {
    address: read(
      'TEMPORAL_ADDRESS',
      optionalText.refine((value) => value === undefined || /^[\w.-]+:\d{1,5}$/.test(value), {
        message: 'must be host:port, such as 127.0.0.1:7233',
      }),
    ),
    namespace: read('TEMPORAL_NAMESPACE', z.string().min(1).default('default')),
    devPort: read('NEOFLOW_TEMPORAL_PORT', port.default(7233)),
    uiPort: read('NEOFLOW_TEMPORAL_UI_PORT', port.default(8233)),
    taskQueue: read('NEOFLOW_TASK_QUEUE', z.string().min(1).default('neoflow')),
  },
  worker: {
    maxActivities: read('NEOFLOW_WORKER_MAX_ACTIVITIES', positiveInt.default(32)),
    maxWorkflowTasks: read('NEOFLOW_WORKER_MAX_WORKFLOW_TASKS', positiveInt.default(512)),
    /** Function runs at once, all accounts together: what bounds the isolates of a process. */
    maxRuns: read('NEOFLOW_WORKER_MAX_RUNS', positiveInt.default(128)),
    sandboxMemoryMb: read('NEOFLOW_SANDBOX_MEMORY_MB', positiveInt.default(128)),
    /** Calls to `context.services` one run may make. */
    sandboxServiceCalls: read('NEOFLOW_SANDBOX_SERVICE_CALLS', positiveInt.default(1000)),
    /** Where a worker process serves `/metrics`; 0 for nowhere. */
    metricsPort: read('NEOFLOW_WORKER_METRICS_PORT', z.coerce.number().int().min(0).max(65535).default(9464)),
    /**
     * Runs of one account at once, whatever the others do. Unset (the default), none: an account
     * alone may use every run slot, and busy accounts share them equally (functions/account-slots.ts).
     */
    runsPerAccount: read('NEOFLOW_ACCOUNT_CONCURRENCY', positiveInt.optional()),
    /**
     * Webhook deliveries, notifications, contract prepares and relays of one account this process
     * runs at once: what keeps one account's slow receivers from holding every activity slot.
     */
    activitiesPerAccount: read('NEOFLOW_ACCOUNT_ACTIVITIES', positiveInt.default(4)),
    /**
     * The PKCS#11 module (a path such as /usr/lib/softhsm/libsofthsm2.so) through which the worker
     * opens `pkcs11` signers' keys, and its user's PIN: a secret, taken as given (not trimmed).
     */
    pkcs11: {
      module: read('NEOFLOW_PKCS11_MODULE', optionalText),
      pin: read(
        'NEOFLOW_PKCS11_PIN',
        z
          .string()
          .optional()
          .transform((value) => (value === '' ? undefined : value)),
      ),
    },
  },
  neo: {
    rpcUrl: read('NEO_RPC_URL', optionalUrl(['http:', 'https:'], 'http://127.0.0.1:20332')),
    devRpcPort: read('NEOFLOW_NEO_RPC_PORT', port.default(20332)),
    /** Every network followed, each through its list of nodes; unset, NEO_RPC_URL's one network `default`. */
    networks: read(
      'NEOFLOW_NETWORKS',
      optionalText.transform((value, context) => {
        if (value === undefined) return undefined;
        try {
          return parseNeoNetworks(value);
        } catch (error) {
          context.addIssue({ code: 'custom', message: (error as Error).message });
          return z.NEVER;
        }
      }),
    ),
    /** Nodes that must give a block the same hash before it is followed; 1 trusts the primary alone. */
    blockAgreement: read('NEOFLOW_BLOCK_AGREEMENT', positiveInt.max(16).default(1)),
  },
  /** Unset outside production until `neoflow up` generates development values. */
  secrets: {
    masterKey: read('NEOFLOW_MASTER_KEY', optionalKey),
    previousMasterKeys: read('NEOFLOW_PREVIOUS_MASTER_KEYS', keyList),
    payloadKey: read('NEOFLOW_PAYLOAD_KEY', optionalKey),
    /** Earlier payload keys: what they sealed still decodes while a rotation completes. */
    previousPayloadKeys: read('NEOFLOW_PREVIOUS_PAYLOAD_KEYS', keyList),
    operatorToken: read('NEOFLOW_OPERATOR_TOKEN', optionalToken),
    /** What Prometheus presents for `/metrics`; unset, the operator token (as before it existed). */
    metricsToken: read('NEOFLOW_METRICS_TOKEN', optionalToken),
    /**
     * The deployment's receipt key, which signs every execution's end (src/receipts/); unset,
     * executions end without receipts. Never a tenant's signer nor the operator's wallet.
     */
    receiptKey: read('NEOFLOW_RECEIPT_KEY', optionalReceiptKey),
    /** Public keys of receipt keys no longer signing: listed, so that their receipts still verify. */
    retiredReceiptKeys: read('NEOFLOW_RECEIPT_KEYS_RETIRED', publicKeyList),
    /**
     * `configfs-tsm`: each worker process signs receipts with a key of its own, bound to its
     * confidential VM by a report (src/receipts/tee/); `none`, the deployment's key.
     */
    receiptTee: read('NEOFLOW_RECEIPT_TEE', z.enum(['none', 'configfs-tsm']).default('none')),
  },
  /** What one account may start: each refused with a 4xx that names the limit. */
  quotas: {
    automationsPerAccount: read('NEOFLOW_ACCOUNT_AUTOMATIONS', positiveInt.default(1000)),
    functionsPerAccount: read('NEOFLOW_ACCOUNT_FUNCTIONS', positiveInt.default(1000)),
    /** Versions one function keeps; beyond them, the oldest that nothing pins or runs is deleted. */
    versionsPerFunction: read('NEOFLOW_FUNCTION_VERSIONS', positiveInt.default(100)),
    /**
     * The shortest interval between two fires of a schedule, and between two reads of a price. A
     * 5-field cron fires at most once a minute: a larger floor would need the minute fields read too.
     */
    shortestScheduleSeconds: read(
      'NEOFLOW_SHORTEST_SCHEDULE_SECONDS',
      z.coerce.number().int().min(1).max(60).default(10),
    ),
    shortestPollSeconds: read('NEOFLOW_SHORTEST_POLL_SECONDS', positiveInt.default(10)),
    /** Executions of one account recorded and not yet ended; an invoke beyond them answers 429. */
    queuedExecutionsPerAccount: read('NEOFLOW_ACCOUNT_QUEUED_EXECUTIONS', positiveInt.default(1000)),
  },
  /** Default per-key request rate. */
  rateLimit: read('NEOFLOW_RATE_LIMIT', rateSetting('100/10s')),
  /** The requests inbound webhooks may make (src/automations/hooks/): to one hook, to an account's hooks. */
  hookRates: {
    perAutomation: read('NEOFLOW_HOOK_RATE', rateSetting('60/10s')),
    perAccount: read('NEOFLOW_ACCOUNT_HOOK_RATE', rateSetting('300/10s')),
  },
  /** What tenants' outbound requests (price sources) may reach inside the service's network. */
  egress: read(
    'NEOFLOW_EGRESS_ALLOW',
    z
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
  ),
  /**
   * Browser origins (the Temporal Web UI) whose pages may read the codec endpoint's answers (CORS);
   * no credential. Unset, the dev server's Web UI under both names a browser may use for it.
   */
  codec: {
    allowedOrigins: read(
      'NEOFLOW_CODEC_ALLOWED_ORIGINS',
      optionalOrigins.transform((value) => (value === undefined ? undefined : listOf(value))),
    ),
  },
  /**
   * The recovery sweep: how often it looks for executions recorded but perhaps never started, and
   * how long such an execution has had to start before it counts as one.
   */
  recovery: {
    intervalMs: recoverySeconds,
    graceMs: recoverySeconds,
    /** Audit events older than this many days are deleted by the reconciler, a bounded batch a pass. */
    auditRetentionDays: read('NEOFLOW_AUDIT_RETENTION_DAYS', positiveInt.default(365)),
  },
  /** Defaults of automations' triggers; a price trigger may set its own interval and age. */
  automations: {
    /** How late a schedule may still fire a missed time (after downtime). */
    catchupWindowMs: read('NEOFLOW_SCHEDULE_CATCHUP_SECONDS', secondsAsMs(60)),
    pricePollMs: read('NEOFLOW_PRICE_POLL_SECONDS', secondsAsMs(30)),
    priceMaxAgeMs: read('NEOFLOW_PRICE_MAX_AGE_SECONDS', secondsAsMs(300)),
    pricePreset: read('NEOFLOW_PRICE_SOURCE', z.enum(['coingecko', 'binance']).default('coingecko')),
    /**
     * Price polls in a row that read no usable price, or checks in a row that found a blockchain
     * trigger's contract not deployed, before the automation moves to `error`.
     */
    triggerFailureLimit: read('NEOFLOW_TRIGGER_FAILURES', positiveInt.default(10)),
    /**
     * Runs one account's automations may record from one read: a block the follower reads, or a
     * poll of a price source. Those beyond are recorded failed (`RunLimitExceeded`), never started:
     * a shared loop starts a bounded number of runs per account whatever its watchers match.
     */
    runsPerRead: read('NEOFLOW_ACCOUNT_RUNS_PER_READ', positiveInt.default(100)),
    /** How often the block follower checks that the watched contracts are deployed. */
    contractCheckMs: read('NEOFLOW_CONTRACT_CHECK_SECONDS', secondsAsMs(30)),
    /**
     * How long one attempt of a contract run's relay looks for its transaction before it ends and
     * Temporal retries it (without limit): under the relay activity's 30-minute timeout.
     */
    relayAttemptMs: read('NEOFLOW_RELAY_ATTEMPT_SECONDS', secondsAsMs(1500)),
    /** The most blocks one replay reads a second: the node serves live following first. */
    replayBlocksPerSecond: read('NEOFLOW_REPLAY_BLOCKS_PER_SECOND', positiveInt.default(200)),
    /** Telegram's Bot API, where telegram notifications go (through the egress guard). */
    telegramApiUrl: read(
      'NEOFLOW_TELEGRAM_API_URL',
      z.url({ protocol: /^https?$/ }).default('https://api.telegram.org'),
    ),
  },
};

/** Every variable Neoflow reads, by its schema: the README's configuration table is checked against it. */
export const variables = environmentShape(settings);

type Variable = keyof typeof variables;

/** The system's variables Neoflow follows: where the Go binaries are cached by default. */
const cacheHome = { HOME: optionalText, XDG_CACHE_HOME: optionalText };

/** Loose: Temporal's own variables (TLS, API key, gRPC headers) are read by its SDK's reader. */
const configSchema = z
  .looseObject({ ...variables, ...cacheHome })
  .superRefine((env, context) => {
    // Both read in milliseconds.
    if (env.NEOFLOW_PRICE_POLL_SECONDS < toMs(env.NEOFLOW_SHORTEST_POLL_SECONDS)) {
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
    if (env.NEOFLOW_PKCS11_MODULE !== undefined && env.NEOFLOW_PKCS11_PIN === undefined) {
      context.addIssue({
        code: 'custom',
        path: ['NEOFLOW_PKCS11_PIN'],
        message: 'must be set when NEOFLOW_PKCS11_MODULE is: the worker logs in to its tokens with it',
      });
    }
    for (const issue of neoSettingIssues(env.NEOFLOW_NETWORKS, env.NEO_RPC_URL, env.NEOFLOW_BLOCK_AGREEMENT))
      context.addIssue({ code: 'custom', ...issue });
    if (env.NEOFLOW_ENV !== 'production') return;
    for (const variable of productionSecrets) {
      if (env[variable] === undefined)
        context.addIssue({ code: 'custom', path: [variable], message: 'must be set in production' });
    }
  })
  .transform((env, context) => {
    const config = nested(settings, env);
    const uiPort = config.temporal.uiPort;
    // What an unset setting falls back to when its default is another setting's value.
    const networks = config.neo.networks ?? (config.neo.rpcUrl ? shorthandNetwork(config.neo.rpcUrl) : undefined);
    return {
      ...config,
      /** `rpcUrl`: the first network's first node, for what speaks to one node (`neoflow up`, `fn run`). */
      neo: { ...config.neo, networks, rpcUrl: config.neo.rpcUrl ?? networks?.[0]?.nodes[0]?.url },
      binDir: resolve(
        config.binDir ?? join(env.XDG_CACHE_HOME ?? join(env.HOME ?? homedir(), '.cache'), 'neoflow', 'bin'),
      ),
      client: { ...config.client, apiUrl: config.client.apiUrl ?? `http://${config.api.host}:${config.api.port}` },
      /** TLS, API key and gRPC headers for a real cluster, from Temporal's own variables. */
      temporal: { ...config.temporal, security: temporalSecurity(env, context) },
      codec: {
        allowedOrigins: config.codec.allowedOrigins ?? [`http://127.0.0.1:${uiPort}`, `http://localhost:${uiPort}`],
      },
    };
  });

export type Config = z.output<typeof configSchema>;

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
  const parsed = configSchema.safeParse(env);
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

/** Keys, tokens, PINs and a database URL's password are never echoed back. */
function redact(variable: string, value: string): string {
  if (variable === 'DATABASE_URL') return value.replace(/\/\/([^:/@]+):[^@]*@/, '//$1:***@');
  return /KEY|TOKEN|PIN/.test(variable) ? '***' : value;
}

/** For processes that run against services started elsewhere (api, worker, migrate). */
export function requireSetting<T>(value: T | undefined, variable: Variable): T {
  if (value === undefined)
    throw new ConfigError(variable, 'must be set for this command (`neoflow up` sets it for the processes it starts)');
  return value;
}
