import type { Config } from './config.ts';
import type { Logger } from './log.ts';
import type { Runtime } from './runtime.ts';
import type { Services } from './services.ts';

/** The API's services over an open runtime; the runtime's owner closes it. */
export function servicesOf(config: Config, log: Logger, runtime: Runtime, hostsWorker: boolean): Services {
  const { orm, neo, masterKeys, temporal } = runtime;
  return { config, log, orm, em: () => orm.em, temporal, hostsWorker, neo, masterKeys };
}
