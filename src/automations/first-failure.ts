/**
 * The answers of checks started at once, once all are settled; the first failure in their order
 * otherwise, so that a request failing two of them is answered as when they ran one after another.
 */
export async function firstFailureOf<T extends readonly unknown[]>(
  checks: T,
): Promise<{ -readonly [K in keyof T]: Awaited<T[K]> }> {
  const settled = await Promise.allSettled(checks);
  const failed = settled.find((outcome) => outcome.status === 'rejected');
  if (failed) throw failed.reason;
  return settled.map((outcome) => (outcome as PromiseFulfilledResult<unknown>).value) as {
    -readonly [K in keyof T]: Awaited<T[K]>;
  };
}
