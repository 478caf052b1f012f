interface ComponentHealth {
  status: 'ok' | 'down';
  latencyMs: number;
  error?: string;
  [extra: string]: unknown;
}

interface HealthReport {
  status: 'ok' | 'degraded';
  postgres: ComponentHealth;
  temporal: ComponentHealth;
  neo: ComponentHealth;
}

/** A probe resolves with extra fields to report (such as the block height) or throws. */
type Probe = () => Promise<Record<string, unknown>>;

export interface HealthProbes {
  postgres: Probe;
  temporal: Probe;
  neo: Probe;
}

const probeTimeoutMs = 2000;

/** A probe's failure that still has fields to report (each Neo node's standing beside the height it could not read). */
export class ProbeFailure extends Error {
  readonly extra: Record<string, unknown>;

  constructor(cause: unknown, extra: Record<string, unknown>) {
    super(cause instanceof Error ? cause.message : String(cause));
    this.name = 'ProbeFailure';
    this.extra = extra;
  }
}

export async function checkHealth(probes: HealthProbes): Promise<HealthReport> {
  const [postgres, temporal, neo] = await Promise.all([
    measure(probes.postgres),
    measure(probes.temporal),
    measure(probes.neo),
  ]);
  const allOk = [postgres, temporal, neo].every((component) => component.status === 'ok');
  return { status: allOk ? 'ok' : 'degraded', postgres, temporal, neo };
}

async function measure(probe: Probe): Promise<ComponentHealth> {
  const started = performance.now();
  const latency = () => Math.round(performance.now() - started);
  try {
    const extra = await withTimeout(probe(), probeTimeoutMs);
    return { status: 'ok', latencyMs: latency(), ...extra };
  } catch (error) {
    const extra = error instanceof ProbeFailure ? error.extra : {};
    return {
      status: 'down',
      latencyMs: latency(),
      error: error instanceof Error ? error.message : String(error),
      ...extra,
    };
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * How long one health report answers every request: `/v1/health` needs no key, so without it each
 * request would make three remote calls; with it, any number make three a second at most.
 */
const reportFreshMs = 1000;

/**
 * `checkHealth` shared: requests while a check runs wait for that one, and its report answers
 * every request for `freshMs` after it ends.
 */
export function sharedHealth(probes: HealthProbes, freshMs = reportFreshMs, now = () => performance.now()) {
  let fresh: { report: HealthReport; until: number } | undefined;
  let pending: Promise<HealthReport> | undefined;
  return (): Promise<HealthReport> => {
    if (fresh && now() < fresh.until) return Promise.resolve(fresh.report);
    pending ??= checkHealth(probes)
      .then((report) => {
        fresh = { report, until: now() + freshMs };
        return report;
      })
      .finally(() => {
        pending = undefined;
      });
    return pending;
  };
}
