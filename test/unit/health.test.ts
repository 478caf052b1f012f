import { describe, expect, it } from 'vitest';
import { checkHealth } from '../../src/health/health.service.ts';

const ok = async () => ({});

describe('checkHealth', () => {
  it('is ok when every component answers, with latency and extra fields', async () => {
    const report = await checkHealth({ postgres: ok, temporal: ok, neo: async () => ({ blockHeight: 12 }) });
    expect(report.status).toBe('ok');
    expect(report.neo).toMatchObject({ status: 'ok', blockHeight: 12 });
    expect(report.postgres.latencyMs).toBeGreaterThanOrEqual(0);
  });

  it('is degraded and says why when a component fails', async () => {
    const report = await checkHealth({
      postgres: ok,
      temporal: async () => Promise.reject(new Error('connection refused')),
      neo: ok,
    });
    expect(report.status).toBe('degraded');
    expect(report.temporal).toMatchObject({ status: 'down', error: 'connection refused' });
  });

  it('gives up on a component that hangs', async () => {
    const report = await checkHealth({ postgres: () => new Promise(() => undefined), temporal: ok, neo: ok });
    expect(report.postgres).toMatchObject({ status: 'down', error: 'no answer within 2000 ms' });
  }, 5000);
});
