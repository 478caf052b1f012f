import { readFile } from 'node:fs/promises';
import { expect, it } from 'vitest';
import { collectProcessMetrics, registry } from '../../src/metrics/metrics.ts';

const read = (path: string) => readFile(new URL(`../../deploy/${path}`, import.meta.url), 'utf8');

it('the Grafana dashboard and the alert rules use only metrics the processes export', async () => {
  // The API and a worker, the processes Prometheus scrapes, collect the process metrics too.
  collectProcessMetrics();
  const exported = new Set((await registry.getMetricsAsJSON()).map((metric) => metric.name));
  const dashboard = JSON.parse(await read('grafana/neoflow.json')) as { panels: { targets: { expr: string }[] }[] };
  const expressions = [
    ...dashboard.panels.flatMap((panel) => panel.targets.map((target) => target.expr)),
    await read('prometheus/alerts.yml'),
  ].join('\n');
  const used = new Set(
    [...expressions.matchAll(/\bneoflow_[a-z_]+/g)].map(([name]) => name.replace(/_(bucket|sum|count)$/, '')),
  );
  expect(used.size).toBeGreaterThanOrEqual(8);
  expect([...used].filter((name) => !exported.has(name))).toEqual([]);
});
