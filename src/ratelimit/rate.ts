/** A rate as written in configuration and on the CLI: `<requests>/<seconds>s`, e.g. `100/10s`. */
export interface Rate {
  requests: number;
  windowSeconds: number;
}

export function parseRate(text: string): Rate | undefined {
  const match = /^(\d{1,7})\/(\d{1,6})s$/.exec(text.trim());
  if (!match) return undefined;
  const rate = { requests: Number(match[1]), windowSeconds: Number(match[2]) };
  return rate.requests > 0 && rate.windowSeconds > 0 ? rate : undefined;
}

/** A key's own rate as its two columns store it: both set, or none (the default applies). */
export function storedRate(requests: number | null | undefined, windowSeconds: number | null | undefined): Rate | null {
  return requests && windowSeconds ? { requests, windowSeconds } : null;
}
