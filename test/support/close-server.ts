import type { Server } from 'node:http';

/**
 * Stops `server` without waiting on kept-alive connections (a worker polling a price, `fetch`'s
 * pool): resolves once it no longer listens. One that never listened, or already closed, at once.
 */
export function closeServer(server: Server): Promise<void> {
  return new Promise<void>((resolveClose) => {
    if (!server.listening) return resolveClose();
    server.close(() => resolveClose());
    server.closeAllConnections();
  });
}
