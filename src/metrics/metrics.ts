import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { executionErrorName } from '../shared/outcomes.ts';

/**
 * The process's metrics (Prometheus): the API serves them at `GET /metrics`, a worker process on
 * `NEOFLOW_WORKER_METRICS_PORT`. A run is counted where it ends, in whichever process ran it (an
 * API runs the invokes it starts). Labels are bounded: a route is its template, never a path with
 * ids; an error name outside the known ones is `other`.
 */
export const registry = new Registry();

/**
 * How often the event loop's delay is sampled. prom-client's 10 ms wakes an idle process 100 times
 * a second: 2.2 ms of CPU a second on this project's 2-core machines, against 0.3 ms at 100 ms
 * (a blocked loop is still seen as it delays the next sample).
 */
const eventLoopSampleMs = 100;
let collectingProcessMetrics = false;

/**
 * The process's own metrics (`neoflow_process_*`, `neoflow_nodejs_*`: CPU, memory, event loop, GC)
 * from the first call on, made by the processes that serve `/metrics` (the API, a worker with a
 * metrics port) rather than by every process that loads this module (`neoflow up`'s supervisor,
 * migrate, the CLI), which would each sample their event loop for nobody.
 */
export function collectProcessMetrics() {
  if (collectingProcessMetrics) return;
  collectingProcessMetrics = true;
  collectDefaultMetrics({ register: registry, prefix: 'neoflow_', eventLoopMonitoringPrecision: eventLoopSampleMs });
}

export const httpRequests = new Counter({
  name: 'neoflow_http_requests_total',
  help: 'HTTP requests answered, by method, route template and status.',
  labelNames: ['method', 'route', 'status'] as const,
  registers: [registry],
});

export const httpDuration = new Histogram({
  name: 'neoflow_http_request_duration_seconds',
  help: 'Time to answer an HTTP request, by method and route template.',
  labelNames: ['method', 'route'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
  registers: [registry],
});

export const executions = new Counter({
  name: 'neoflow_executions_total',
  help: 'Function executions ended, by status and what started them (api, retry, automation).',
  labelNames: ['status', 'trigger'] as const,
  registers: [registry],
});

export const executionDuration = new Histogram({
  name: 'neoflow_execution_duration_seconds',
  help: 'How long ended executions ran.',
  labelNames: ['status'] as const,
  buckets: [0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 120, 300],
  registers: [registry],
});

export const automationRuns = new Counter({
  name: 'neoflow_automation_runs_total',
  help: 'Automation runs ended, by trigger type and status.',
  labelNames: ['trigger', 'status'] as const,
  registers: [registry],
});

export const scheduleStalls = new Counter({
  name: 'neoflow_schedule_stalls_total',
  help: 'Active schedules found not firing by the reconciler and made to fire again, by kind of stall.',
  labelNames: ['kind'] as const,
  registers: [registry],
});

export const followerLag = new Gauge({
  name: 'neoflow_block_follower_lag_blocks',
  help: 'Blocks the chain is ahead of the block follower, by network.',
  labelNames: ['network'] as const,
  registers: [registry],
});

/**
 * When each network's cursor last advanced as this process saw it, and when this process last ran
 * (or tried to run) a round of that network's follower: the cursor's age is reported only by the
 * processes that follow it, failed rounds included, so that a follower whose rounds keep failing
 * shows an age that grows while one that moved to another worker leaves no stale value here.
 */
const followedCursors = new Map<string, { advancedAt: number; followedAt: number }>();
/** Longer than the follower's retry interval (10 s at most) and its rounds' wait for a block. */
const followingWindowMs = 60_000;

export const followerCursorAge = new Gauge({
  name: 'neoflow_block_cursor_age_seconds',
  help: 'Seconds since the block follower last advanced its cursor, by network, from the processes following it.',
  labelNames: ['network'] as const,
  registers: [registry],
  collect() {
    this.reset();
    const now = Date.now();
    for (const [network, { advancedAt, followedAt }] of followedCursors) {
      if (now - followedAt <= followingWindowMs) this.set({ network }, Math.max(0, now - advancedAt) / 1000);
    }
  },
});

/** A round of `network`'s follower ran or failed here; `advancedAt`: when its cursor last moved, if known. */
export function noteFollowing(network: string, advancedAt?: Date) {
  const known = followedCursors.get(network);
  const advanced = advancedAt?.getTime() ?? known?.advancedAt;
  if (advanced !== undefined) followedCursors.set(network, { advancedAt: advanced, followedAt: Date.now() });
}

export const sandboxFailures = new Counter({
  name: 'neoflow_sandbox_failures_total',
  help: 'Executions that failed, by error name (names outside the known ones count as other).',
  labelNames: ['name'] as const,
  registers: [registry],
});

export const runsInProgress = new Gauge({
  name: 'neoflow_function_runs_in_progress',
  help: "Executions whose code runs in this process now, each holding a slot of its account's share.",
  registers: [registry],
});

export const rateLimited = new Counter({
  name: 'neoflow_rate_limited_total',
  help: "Requests refused for their key's rate limit (429).",
  registers: [registry],
});

/** The error names the service sets, and the language's own: anything else is `other`. */
const knownErrorNames = new Set<string>([
  ...Object.values(executionErrorName),
  'SyntaxError',
  'Error',
  'TypeError',
  'RangeError',
  'ReferenceError',
  'EvalError',
  'URIError',
  'AggregateError',
]);

export const errorNameLabel = (name: string) => (knownErrorNames.has(name) ? name : 'other');

export const codeChecks = new Counter({
  name: 'neoflow_function_code_checks_total',
  help: "Functions' code parsed at save (TypeScript stripped first), by runtime: a save that changes neither code nor runtime parses none.",
  labelNames: ['runtime'] as const,
  registers: [registry],
});

export const auditEventsWritten = new Counter({
  name: 'neoflow_audit_events_total',
  help: 'Audit events written, by action (docs/api.md, "Audit log").',
  labelNames: ['action'] as const,
  registers: [registry],
});

export const hooksReceived = new Counter({
  name: 'neoflow_hooks_received_total',
  help: 'Inbound webhook requests, by outcome: accepted, repeated (an idempotency key seen), or why refused.',
  labelNames: ['outcome'] as const,
  registers: [registry],
});
