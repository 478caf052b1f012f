import { randomInt } from 'node:crypto';
import { createServer } from 'node:net';

export class PortInUseError extends Error {
  constructor(port: number, variable: string) {
    super(`port ${port} is already in use: free it or set ${variable} to another port`);
    this.name = 'PortInUseError';
  }
}

/** Fails with a message naming the variable that moves the port when something listens there. */
export async function assertPortFree(port: number, variable: string, host = '127.0.0.1') {
  if (!(await isPortFree(port, host))) throw new PortInUseError(port, variable);
}

export function isPortFree(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolvePort) => {
    const server = createServer();
    server.once('error', () => resolvePort(false));
    server.listen({ port, host, exclusive: true }, () => server.close(() => resolvePort(true)));
  });
}

/** Linux hands out 32768–60999 to outgoing connections and to `listen(0)`. */
const firstEphemeralPort = 32768;
const lowestPort = 10000;

/**
 * A free port for a service started a moment later (tests, throw-away stacks): below the kernel's
 * ephemeral range, so no connection the machine opens meanwhile, nor any `listen(0)`, takes it
 * before the service binds it (a port the kernel hands out is often handed out again at once).
 */
export async function freePort(host = '127.0.0.1'): Promise<number> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const port = lowestPort + randomInt(firstEphemeralPort - lowestPort);
    if (await isPortFree(port, host)) return port;
  }
  throw new Error(`no free port from ${lowestPort} to ${firstEphemeralPort - 1}`);
}
