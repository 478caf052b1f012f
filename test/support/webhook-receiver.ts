import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { closeServer } from './close-server.ts';

export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/**
 * A receiver of webhooks on loopback: it records every request and answers 200 unless told to
 * answer others first (per path), or to hold a request until released.
 */
export async function startWebhookReceiver() {
  const received: Received[] = [];
  const answers = new Map<string, number[]>();
  const bodies = new Map<string, Buffer>();
  const held = new Map<string, () => void>();
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const path = request.url ?? '/';
      received.push({ path, headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
      const answer = () => {
        const status = answers.get(path)?.shift() ?? 200;
        response.writeHead(status, { 'content-type': 'text/plain' }).end(bodies.get(path) ?? `answer ${status}`);
      };
      const hold = held.get(path);
      if (!hold) return answer();
      held.delete(path);
      hold();
      // Held until the connection is dropped (the sender was killed): never answered.
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    /** A URL of this receiver; each test takes a path of its own. */
    url: (path: string) => `http://127.0.0.1:${port}${path}`,
    /** What `path` received, in order. */
    at: (path: string) => received.filter((request) => request.path === path),
    /** The next requests to `path` are answered with these statuses, then 200. */
    answer: (path: string, ...statuses: number[]) => void answers.set(path, statuses),
    /** Answers to `path` carry these bytes, not `answer <status>`. */
    answerBody: (path: string, body: Buffer) => void bodies.set(path, body),
    /** The next request to `path` is never answered; resolves when it has arrived. */
    holdNext: (path: string) => new Promise<void>((resolve) => held.set(path, resolve)),
    close: () => closeServer(server),
  };
}

export type WebhookReceiver = Awaited<ReturnType<typeof startWebhookReceiver>>;
