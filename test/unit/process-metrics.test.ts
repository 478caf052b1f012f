import { describe, expect, it } from 'vitest';
import { collectProcessMetrics, registry } from '../../src/metrics/metrics.ts';

describe('process metrics', () => {
  it('are not sampled by a process that only loads the metrics module, and are registered once however many servers ask', () => {
    expect(registry.getSingleMetric('neoflow_process_cpu_seconds_total')).toBeUndefined();
    expect(registry.getSingleMetric('neoflow_nodejs_eventloop_lag_seconds')).toBeUndefined();
    collectProcessMetrics();
    // A second registration of the same names would throw.
    collectProcessMetrics();
    expect(registry.getSingleMetric('neoflow_process_cpu_seconds_total')).toBeDefined();
    expect(registry.getSingleMetric('neoflow_nodejs_eventloop_lag_seconds')).toBeDefined();
  });
});
