import { DefaultFailureConverter } from '@temporalio/common';

/**
 * Moves every failure's message and stack trace (activity and workflow errors, their causes) into
 * an encoded-attributes payload, which the payload codec then seals like any other payload; the
 * history keeps only "Encoded failure". Loaded by path (`failureConverterPath` in codec.ts) by
 * clients and workers, and bundled into the workflow sandbox, so it must use no Node API and import
 * nothing local (worker/bundle.ts hashes this file alone with the workflow sources).
 */
export const failureConverter = new DefaultFailureConverter({ encodeCommonAttributes: true });
