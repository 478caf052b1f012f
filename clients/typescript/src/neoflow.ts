import { createClient, createConfig, type Client } from './generated/client/index.ts';
import { idempotentOperations } from './generated/idempotent-operations.gen.ts';
import { errorDetailOf, NeoflowError } from './errors.ts';
import { retryingFetch, type RetryPolicy } from './retry.ts';

export interface NeoflowClientOptions {
  /** Where the API is served, without `/v1` (the operations' paths hold it): `http://127.0.0.1:8080`. */
  baseUrl: string;
  /** An API key (`neoflow keys create`), sent as `Authorization: Bearer`. */
  apiKey?: string;
  /** Retries of 429 and 503 answers; `false` sends every request once. */
  retry?: RetryPolicy | false;
  /** The `fetch` to send with (default: the global one). */
  fetch?: typeof fetch;
}

/**
 * A client for the generated operations (`postFunctions({client, body})`…): it sends the key,
 * retries what the API refused for now, gives every create and invoke an `Idempotency-Key` (kept
 * across its retries, so it runs once), and throws each error answer as a {@link NeoflowError}.
 */
export function createNeoflowClient(options: NeoflowClientOptions): Client {
  const send = options.fetch ?? globalThis.fetch;
  const client = createClient(
    createConfig({
      baseUrl: options.baseUrl.replace(/\/+$/, ''),
      throwOnError: true,
      headers: options.apiKey === undefined ? {} : { Authorization: `Bearer ${options.apiKey}` },
      fetch: options.retry === false ? send : retryingFetch(send, options.retry),
    }),
  );
  client.interceptors.request.use((request, { url }) => {
    if (!request.headers.has('Idempotency-Key') && takesIdempotencyKey(request.method, url))
      request.headers.set('Idempotency-Key', crypto.randomUUID());
    return request;
  });
  // Only error statuses become a NeoflowError: a network error (no response) stays as thrown.
  client.interceptors.error.use((error, response) =>
    response === undefined || response.ok
      ? error
      : new NeoflowError(response.status, errorDetailOf(error, response.status), response.headers),
  );
  return client;
}

const idempotent = new Set(idempotentOperations.map(({ method, path }) => `${method} ${path}`));

/** `url` is the operation's path as the document spells it (`/v1/functions/{id}/invoke`). */
const takesIdempotencyKey = (method: string, url: string) => idempotent.has(`${method} ${url}`);
