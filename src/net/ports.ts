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

/** A port the kernel just handed out, for tests and throw-away services. */
export function freePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen({ port: 0, host }, () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolvePort(port));
    });
  });
}
