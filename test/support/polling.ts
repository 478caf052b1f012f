import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Reads until `done` holds or the time is up, `intervalMs` apart; answers the last reading either
 * way. Free of vitest, so that the benchmarks poll with it too.
 */
export async function until<T>(
  read: () => Promise<T>,
  done: (value: T) => boolean,
  timeoutMs = 30_000,
  intervalMs = 250,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await sleep(intervalMs);
  }
}
