import { afterEach, describe, expect, it } from 'vitest';
import { metricsToken } from '../../src/auth/operator-token.ts';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/log.ts';
import { serveWorkerMetrics } from '../../worker/metrics-server.ts';

const operator = 'operator-token-0123456789abcdef';
const scraper = 'metrics-token-0123456789abcdef';
let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

/** A worker's metrics endpoint as `worker/main.ts` starts it for `env`, and what each token gets. */
async function statusesFor(env: Record<string, string>) {
  const served = await serveWorkerMetrics(0, metricsToken(loadConfig(env).secrets), createLogger('worker', 'error'));
  close = served.close;
  const status = async (token: string) =>
    (await fetch(`http://127.0.0.1:${served.port}/metrics`, { headers: { Authorization: `Bearer ${token}` } })).status;
  return { metrics: await status(scraper), operator: await status(operator) };
}

describe("a worker's metrics endpoint", () => {
  it('answers the metrics token alone once one is set: the scraper never holds the token that decodes payloads', async () => {
    expect(await statusesFor({ NEOFLOW_OPERATOR_TOKEN: operator, NEOFLOW_METRICS_TOKEN: scraper })).toEqual({
      metrics: 200,
      operator: 401,
    });
  });

  it('answers the operator token where no metrics token is set, as before', async () => {
    expect(await statusesFor({ NEOFLOW_OPERATOR_TOKEN: operator })).toEqual({ metrics: 401, operator: 200 });
  });
});
