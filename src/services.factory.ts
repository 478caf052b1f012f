import type { Config } from './config.ts';
import type { LocalRuns } from './functions/local-runs.ts';
import type { Logger } from './log.ts';
import type { Runtime } from './runtime.ts';
import type { Services } from './services.ts';

/**
 * The API's services over an open runtime; the runtime's owner closes it. `localRuns`: the one its
 * worker was given, when this process hosts one.
 */
export function servicesOf(config: Config, log: Logger, runtime: Runtime, localRuns?: LocalRuns): Services {
  const { orm, neo, masterKeys, payloadKeys, temporal } = runtime;
  return { config, log, orm, em: () => orm.em, temporal, localRuns, neo, masterKeys, payloadKeys };
}
