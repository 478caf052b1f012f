/** A service named by configuration did not answer; the message names the variable. */
class UnreachableError extends Error {
  constructor(variable: string, cause: unknown) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    super(`cannot connect to the service named by ${variable}: ${reason}`, { cause });
    this.name = 'UnreachableError';
  }
}

/** Runs `open`, turning its failure into an UnreachableError naming `variable`. */
export async function reachable<T>(variable: string, open: () => Promise<T>): Promise<T> {
  try {
    return await open();
  } catch (error) {
    throw new UnreachableError(variable, error);
  }
}
