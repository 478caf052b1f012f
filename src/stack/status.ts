/** The terminal lines of `neoflow up`: one per component, aligned, with how long it took. */
export function statusLine(component: string, state: 'ok' | 'failed' | '..', detail: string, ms?: number) {
  const took = ms === undefined ? '' : `  (${(ms / 1000).toFixed(1)} s)`;
  process.stdout.write(`neoflow  ${component.padEnd(9)} ${state.padEnd(6)} ${detail}${took}\n`);
}

export async function timed<T>(component: string, start: () => Promise<T>, detail: (value: T) => string) {
  const started = performance.now();
  try {
    const value = await start();
    statusLine(component, 'ok', detail(value), performance.now() - started);
    return value;
  } catch (error) {
    statusLine(component, 'failed', error instanceof Error ? error.message : String(error));
    throw error;
  }
}
