import { createServer, type RequestListener, type Server } from 'node:http';
import type Koa from 'koa';
import { hookGate } from '../automations/hooks/hook-gate.routes.ts';
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
  const server = createServer(apiListener(resources, createApp(resources)));
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

/**
 * What the HTTP server hands each request to: a hook request over its rate is refused before Koa
 * makes a context (hook-gate.routes.ts), at about a bare server's cost, so that a flood to one hook
 * leaves the process to other accounts' requests; every other request goes to `app`.
 */
export function apiListener({ config, log }: ApiResources, app: Koa): RequestListener {
  const handle = app.callback();
  const refused = hookGate(config.hookRates.perAutomation, log);
  return (request, response) => {
    if (!refused(request, response)) void handle(request, response);
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
