import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { until } from './polling.ts';
import { closeServer } from './close-server.ts';

/**
 * A price API of our own: answers `{"data": {"price": <price>, "ts": <unix seconds>}}` for every
 * asset with the price set (JSON number text, as written), seen `ageSeconds` ago, and counts the
 * reads. Free of vitest, so that the benchmarks serve prices with it too.
 */
export async function startPriceServer() {
  const quote = { price: '5.00', ageSeconds: 0 };
  let hits = 0;
  const server: Server = createServer((_request, response) => {
    hits++;
    const ts = Math.floor(Date.now() / 1000) - quote.ageSeconds;
    response.setHeader('Content-Type', 'application/json');
    response.end(`{"data":{"price":${quote.price},"ts":${ts}}}`);
  });
  await new Promise<void>((resolveListen) => server.listen(0, '127.0.0.1', resolveListen));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/price/{asset}-{currency}`,
    set: (price: string, ageSeconds = 0) => Object.assign(quote, { price, ageSeconds }),
    hits: () => hits,
    /**
     * Until the source has been read twice more. A price poller records its run before it sleeps,
     * so by then the first of those reads has been judged (fired, or not).
     */
    twoMoreReads: async () => {
      const readBefore = hits;
      await until(
        async () => hits,
        (read) => read >= readBefore + 2,
        30_000,
        50,
      );
    },
    /** Drops kept-alive connections rather than waiting for them: a running worker keeps polling. */
    close: () => closeServer(server),
  };
}
