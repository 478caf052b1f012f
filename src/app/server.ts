import { createServer, type Server } from 'node:http';
import { PortInUseError } from '../net/ports.ts';
import { createApp, type ApiResources } from './app.ts';

interface RunningApi {
  url: string;
  /** Stops serving; the resources stay open for their owner to close. */
  close(): Promise<void>;
}

/** Serves the API over `resources` until `close`. */
export async function startApi(resources: ApiResources): Promise<RunningApi> {
  const { config, log } = resources;
  const handle = createApp(resources).callback();
  const server = createServer((request, response) => void handle(request, response));
  await listen(server, config.api.host, config.api.port);
  const url = `http://${config.api.host}:${config.api.port}`;
  log.info('listening', { url });
  return {
    url,
    close: () =>
      new Promise<void>((resolveClose) => {
        server.close(() => resolveClose());
        server.closeIdleConnections();
      }),
  };
}

function listen(server: Server, host: string, port: number): Promise<void> {
  return new Promise((resolveListen, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(error.code === 'EADDRINUSE' ? new PortInUseError(port, 'NEOFLOW_API_PORT') : error),
    );
    server.listen({ host, port }, () => resolveListen());
  });
}
