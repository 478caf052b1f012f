/**
 * The innermost message: an activity's failure wraps its cause ("Activity task failed"), and a run
 * or a notification records what went wrong, not the wrapper.
 */
export function rootMessage(error: unknown): string {
  let current = error;
  while (current instanceof Error && current.cause instanceof Error) current = current.cause;
  return current instanceof Error ? current.message : String(current);
}
