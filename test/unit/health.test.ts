import { describe, expect, it, vi } from 'vitest';
import { checkHealth, sharedHealth } from '../../src/health/health.service.ts';

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

  // On a fake clock: the 2 s wait proves nothing a busy machine's real one would, and costs 2 s.
  it('gives up on a component that hangs', async () => {
    vi.useFakeTimers();
    try {
      const checked = checkHealth({ postgres: () => new Promise(() => undefined), temporal: ok, neo: ok });
      await vi.advanceTimersByTimeAsync(1999);
      const early = await Promise.race([checked, Promise.resolve('pending')]);
      expect(early).toBe('pending');
      await vi.advanceTimersByTimeAsync(1);
      const report = await checked;
      expect(report.postgres).toMatchObject({ status: 'down', error: 'no answer within 2000 ms' });
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('sharedHealth', () => {
  const counted = () => {
    const calls = { postgres: 0, temporal: 0, neo: 0 };
    const probe = (name: keyof typeof calls) => async () => {
      calls[name] += 1;
      await new Promise((resolve) => setTimeout(resolve, 5));
      return {};
    };
    return { calls, probes: { postgres: probe('postgres'), temporal: probe('temporal'), neo: probe('neo') } };
  };

  it('answers any number of requests within a second with one check: three remote calls', async () => {
    const { calls, probes } = counted();
    let clock = 0;
    const health = sharedHealth(probes, 1000, () => clock);
    const reports = await Promise.all(Array.from({ length: 50 }, () => health()));
    expect(new Set(reports).size).toBe(1);
    clock = 999;
    await health();
    expect(calls).toEqual({ postgres: 1, temporal: 1, neo: 1 });
    clock = 1000;
    await health();
    expect(calls).toEqual({ postgres: 2, temporal: 2, neo: 2 });
  });
});
