/**
 * How far a run's timers go (globals.js enforces them in the isolate; the host holds them again):
 * at most `pending` at once and `perRun` in all, each waiting at most the run's timeout, since a
 * run ends by then. Every wait ends with the run: a timer never keeps a run alive or fires after.
 */
export const timerLimits = { pending: 100, perRun: 1000 };

/** The host side of one `setTimeout`: resolves after `ms` (bounded), or never once the run ends. */
export function waitFor(ms: unknown, maxDelayMs: number, signal: AbortSignal): Promise<void> {
  const delay = typeof ms === 'number' && ms > 0 ? Math.min(ms, maxDelayMs) : 0;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', ended);
      resolve();
    }, delay);
    function ended() {
      clearTimeout(timer);
      reject(new Error('The run has ended.'));
    }
    signal.addEventListener('abort', ended, { once: true });
  });
}
