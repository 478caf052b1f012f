/**
 * The floor of bench:hook-flood's refusal cost: a bare `node:http` server that answers every
 * request 429 with a Retry-After and a JSON body of the API's size, keeping connections alive, and
 * reads nothing it is sent. `node bench/floor/refusal-server.ts` prints its port and serves until killed.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

const body = JSON.stringify({
  success: false,
  error: {
    code: 'rate_limit_exceeded',
    message: 'Requests to this hook are over the rate of 60 per 10 s; retry in 1 s.',
    details: { limit: 60, windowSeconds: 10, retryAfter: 1 },
  },
});
const server = createServer((_request, response) => {
  response.writeHead(429, { 'Content-Type': 'application/json; charset=utf-8', 'Retry-After': '1' });
  response.end(body);
});
server.listen(0, '127.0.0.1', () => process.stdout.write(`${(server.address() as AddressInfo).port}\n`));
