/**
 * Shares one call among the callers that ask while it is in flight, without answering any of them
 * with what was asked before they asked: a caller that comes while a call is in flight waits for
 * it to end and shares the next one, started then for every caller that came meanwhile. Under
 * concurrent requests (creates at concurrency 16 reading the chain's height) this makes about one
 * call per round trip instead of one per request; alone, a caller makes its own call as before.
 * A failed call fails the callers that shared it, and the next caller asks again.
 */
export function nextFlight<T>(call: () => Promise<T>): () => Promise<T> {
  let inFlight: Promise<unknown> | undefined;
  let next: Promise<T> | undefined;
  const start = (): Promise<T> => {
    const flight = call();
    inFlight = flight;
    const clear = () => {
      if (inFlight === flight) inFlight = undefined;
    };
    flight.then(clear, clear);
    return flight;
  };
  return () => {
    if (!inFlight) return start();
    if (!next) {
      const settled = inFlight.then(
        () => undefined,
        () => undefined,
      );
      next = settled.then(() => {
        next = undefined;
        return start();
      });
    }
    return next;
  };
}
