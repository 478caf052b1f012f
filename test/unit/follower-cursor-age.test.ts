import { afterEach, expect, it, vi } from 'vitest';
import { followerCursorAge, noteFollowing } from '../../src/metrics/metrics.ts';

afterEach(() => {
  vi.useRealTimers();
});

const ageOf = async (network: string) =>
  (await followerCursorAge.get()).values.find((value) => value.labels.network === network)?.value;

it('reports the cursor`s age only while this process follows: growing through failed rounds, gone a minute after its last', async () => {
  vi.useFakeTimers({ now: new Date('2026-01-01T00:00:00Z') });
  const network = 'unit-net';
  // A round that failed before it could read the cursor: nothing known to report.
  noteFollowing(network);
  expect(await ageOf(network)).toBeUndefined();
  noteFollowing(network, new Date());
  expect(await ageOf(network)).toBe(0);
  // Rounds that keep failing (no advance): the age grows with every scrape.
  vi.advanceTimersByTime(30_000);
  noteFollowing(network);
  expect(await ageOf(network)).toBe(30);
  vi.advanceTimersByTime(50_000);
  expect(await ageOf(network)).toBe(80);
  // No round here for over a minute: the follower runs on another worker, which reports it.
  vi.advanceTimersByTime(11_000);
  expect(await ageOf(network)).toBeUndefined();
  noteFollowing(network, new Date());
  expect(await ageOf(network)).toBe(0);
});
