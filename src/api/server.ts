import { createServer, type Server } from 'node:http';
import type { Config } from '../config.ts';
import { resumeBlockFollower } from '../automations/automations.service.ts';
import { triggerControlOf } from '../automations/trigger-control.ts';
import { createLogger } from '../log.ts';
import { openServices, closeServices } from '../services.factory.ts';
import { PortInUseError } from '../stack/ports.ts';
import { createApp } from './app.ts';

export interface RunningApi {
  url: string;
  close(): Promise<void>;
}

/** Connects to PostgreSQL, Temporal and Neo, then serves the API until `close`. */
export async function startApi(config: Config): Promise<RunningApi> {
  const log = createLogger('api', config.logLevel);
  const services = await openServices(config, log);
  const handle = createApp(services).callback();
  const server = createServer((request, response) => void handle(request, response));
  try {
    await listen(server, config.api.host, config.api.port);
  } catch (error) {
    await closeServices(services);
    throw error;
  }
  const url = `http://${config.api.host}:${config.api.port}`;
  log.info('listening', { url });
  await resumeBlockFollower(services.orm.em.fork(), triggerControlOf(services)).catch((error: unknown) =>
    log.warn('the block follower could not be resumed', { error: String(error) }),
  );
  return {
    url,
    close: async () => {
      await new Promise<void>((resolveClose) => {
        server.close(() => resolveClose());
        server.closeIdleConnections();
      });
      await closeServices(services);
    },
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
