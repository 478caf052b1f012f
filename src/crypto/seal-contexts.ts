/**
 * Every context a sealed value is bound to (src/crypto/envelope.ts authenticates it): a value cannot
 * be replayed into another row, place or kind of store. Listed once so that no two stores share one.
 */
export const sealContexts = {
  /** A secret's value, per version. */
  secret: (secretId: string, version: number) => `${secretId}:${version}`,
  /** An automation's credential (channel or webhook URL, header value, price-source URL), per place. */
  credential: (automationId: string, path: string) => `automation:${automationId}:${path}`,
  /** An account's signing key. */
  signer: (accountId: string) => `signer:${accountId}`,
  /** A completed execution's result. */
  executionResult: (executionId: string) => `execution:${executionId}`,
  /** A function's stored value. */
  functionStorage: (functionId: string, key: string) => `function-storage:${functionId}:${key}`,
  /** The answer kept for an `Idempotency-Key`. */
  idempotentAnswer: (accountId: string, key: string) => `idempotency:${accountId}:${key}`,
};
