import { createServer, type Server } from 'node:http';
import { resumeBlockFollower } from '../automations/automations.service.ts';
import { triggerControlOf } from '../automations/trigger-control.service.ts';
import { ensureRecoveryLoop } from '../recovery/recovery-loop.ts';
import type { Services } from '../services.ts';
import { PortInUseError } from '../net/ports.ts';
import { createApp } from './app.ts';

interface RunningApi {
  url: string;
  /** Stops serving; the services stay open for their owner to close. */
  close(): Promise<void>;
}

/** Serves the API over `services` until `close`. */
export async function startApi(services: Services): Promise<RunningApi> {
  const { config, log } = services;
  const handle = createApp(services).callback();
  const server = createServer((request, response) => void handle(request, response));
  await listen(server, config.api.host, config.api.port);
  const url = `http://${config.api.host}:${config.api.port}`;
  log.info('listening', { url });
  await resumeBlockFollower(services.orm.em.fork(), triggerControlOf(services)).catch((error: unknown) =>
    log.warn('the block follower could not be resumed', { error: String(error) }),
  );
  const { client } = services.temporal;
  await ensureRecoveryLoop(client, config.temporal.taskQueue, config.recovery.intervalMs).catch((error: unknown) =>
    log.warn('the reconciler loop could not be started', { error: String(error) }),
  );
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
