import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { operatorBearer } from '../src/auth/operator-token.ts';
import type { Logger } from '../src/log.ts';
import { registry } from '../src/metrics/metrics.ts';

/**
 * A worker process's `GET /metrics` (Prometheus text) on `port`, for the operator token only.
 * A port already taken (a second worker on the same host) costs the metrics, not the worker.
 */
export async function serveWorkerMetrics(port: number, operatorToken: string, log: Logger) {
  const presentsToken = operatorBearer(operatorToken);
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
  if (listening) log.info('metrics', { port: (server.address() as AddressInfo).port });
  return { close: () => new Promise<void>((resolve) => (listening ? server.close(() => resolve()) : resolve())) };
}
