import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { operatorBearer } from '../src/auth/operator-token.ts';
import type { Logger } from '../src/log.ts';
import { collectProcessMetrics, registry } from '../src/metrics/metrics.ts';

/**
 * A worker process's `GET /metrics` (Prometheus text) on `port`, for the metrics token only (see
 * `metricsToken`). A port already taken (a second worker on the same host) costs the metrics, not
 * the worker.
 */
export async function serveWorkerMetrics(port: number, token: string, log: Logger) {
  collectProcessMetrics();
  const presentsToken = operatorBearer(token);
  const server = createServer((request, response) => {
    if (request.method !== 'GET' || request.url?.split('?')[0] !== '/metrics') {
      response.writeHead(404).end();
      return;
    }
    if (!presentsToken(request.headers.authorization ?? '')) {
      response.writeHead(401, { 'WWW-Authenticate': 'Bearer' }).end();
      return;
    }
    registry.metrics().then(
      (text) => response.writeHead(200, { 'Content-Type': registry.contentType }).end(text),
      () => response.writeHead(500).end(),
    );
  });
  const listening = await new Promise<boolean>((resolve) => {
    server.once('error', (error) => {
      log.warn('metrics not served', { port, error: error.message });
      resolve(false);
    });
    server.listen(port, () => resolve(true));
  });
  const served = listening ? (server.address() as AddressInfo).port : undefined;
  if (served !== undefined) log.info('metrics', { port: served });
  return {
    /** The port it listens on (`port` 0 picks one), unless it could not. */
    port: served,
    close: () => new Promise<void>((resolve) => (listening ? server.close(() => resolve()) : resolve())),
  };
}
