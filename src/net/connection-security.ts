import { loadClientConnectConfig } from '@temporalio/envconfig';
import type { NativeConnectionOptions } from '@temporalio/worker';

/** What a real cluster asks of a connection beyond its address: TLS, an API key, gRPC headers. */
export type ConnectionSecurity = Pick<NativeConnectionOptions, 'tls' | 'apiKey' | 'metadata'>;

/**
 * Read the way every Temporal SDK and the `temporal` CLI read them (@temporalio/envconfig):
 * `TEMPORAL_API_KEY` (Temporal Cloud; TLS follows), `TEMPORAL_TLS`, `TEMPORAL_TLS_CLIENT_CERT_PATH`
 * / `_DATA`, `TEMPORAL_TLS_CLIENT_KEY_PATH` / `_DATA`, `TEMPORAL_TLS_SERVER_CA_CERT_PATH` /
 * `_DATA`, `TEMPORAL_TLS_SERVER_NAME`, `TEMPORAL_GRPC_META_<NAME>`, and a profile of the TOML file
 * named by `TEMPORAL_CONFIG_FILE` (`TEMPORAL_PROFILE`). The file is read only when named, so a
 * developer's own CLI profile never reaches the dev stack. Nothing set: a plain connection.
 */
export function connectionSecurity(env: Record<string, string | undefined>): ConnectionSecurity {
  const defined = Object.fromEntries(
    Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined),
  );
  const { connectionOptions } = loadClientConnectConfig({
    overrideEnvVars: defined,
    disableFile: defined.TEMPORAL_CONFIG_FILE === undefined,
  });
  const { tls, apiKey, metadata } = connectionOptions;
  return {
    ...(tls !== undefined ? { tls } : {}),
    ...(apiKey !== undefined ? { apiKey } : {}),
    ...(metadata && Object.keys(metadata).length > 0 ? { metadata } : {}),
  };
}
