import type { Router } from '@koa/router';
import { loadConfig } from '../config.ts';
import { createLogger } from '../log.ts';
import type { TriggerControl } from '../automations/triggers.control.ts';
import { payloadKeysOf } from '../crypto/master-keys.ts';
import { openApiDocumentOf } from '../api/openapi.routes.ts';
import { apiAreas, type ApiResources } from './app.ts';

/**
 * Stands for a service the routes are given but use only while answering: its parts may be read
 * (routes keep `temporal.client`), any call throws, so building the document opens nothing.
 */
function unopened<T>(name: string): T {
  const stub: unknown = new Proxy(function service() {}, {
    get: (_target, property) =>
      property === 'then' || typeof property === 'symbol' ? undefined : unopened<unknown>(`${name}.${property}`),
    apply: () => {
      throw new Error(`${name}() was called while building the OpenAPI document`);
    },
    construct: () => {
      throw new Error(`new ${name}() was called while building the OpenAPI document`);
    },
  });
  return stub as T;
}

/** Stands for a key: the routes hold keys but the document says nothing about them. */
const placeholderKey = Buffer.alloc(32).toString('base64');

/**
 * The document `GET /v1/openapi.json` serves, built in process from the same routers without a
 * database, Temporal or a chain, and from a fixed configuration: the same routes give the same
 * document on every machine, which the typed client (clients/typescript) is generated from. Only
 * its server differs from what the API serves, which names the origin each request came to.
 */
export function offlineOpenApiDocument(): unknown {
  const { areas, config } = offlineAreas();
  // The API's address when run with its defaults (`neoflow up`): a client generated from this
  // document calls it unless given another base URL.
  return openApiDocumentOf(areas, { url: `http://${config.api.host}:${config.api.port}` });
}

/** The API's routers over unopened resources, `extraAreas` after them (a test's probe routes). */
export function offlineAreas(extraAreas: Router[] = []) {
  const config = loadConfig({
    NEOFLOW_ENV: 'production',
    NEOFLOW_MASTER_KEY: placeholderKey,
    NEOFLOW_PAYLOAD_KEY: placeholderKey,
    NEOFLOW_OPERATOR_TOKEN: 'a placeholder operator token',
  });
  const resources: ApiResources = {
    config,
    log: createLogger('openapi', 'error'),
    orm: unopened('orm'),
    em: () => unopened('em'),
    temporal: unopened('temporal'),
    localRuns: undefined,
    neo: unopened('neo'),
    networks: unopened('networks'),
    masterKeys: unopened('masterKeys'),
    // The codec's routes build their codec from the keys when made: placeholders, never used.
    payloadKeys: payloadKeysOf(config),
    triggerControl: unopened<TriggerControl>('triggerControl'),
  };
  return { areas: apiAreas(resources, extraAreas), config };
}
