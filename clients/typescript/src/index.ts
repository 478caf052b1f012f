/**
 * Neoflow's typed client: the operations and types generated from the API's OpenAPI document
 * (./generated, by `npm run client:generate`), and what a generator does not write: the key,
 * retries, idempotency keys, pagination and typed errors.
 */
export * from './generated/sdk.gen.ts';
export type * from './generated/types.gen.ts';
export { createNeoflowClient, type NeoflowClientOptions } from './neoflow.ts';
export { NeoflowError, isErrorOf, type ErrorDetail, type ErrorOf } from './errors.ts';
export { paginate, type ItemOf, type PageOf } from './paginate.ts';
export { retryAfterMs, type RetryPolicy } from './retry.ts';
