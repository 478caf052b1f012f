/** A rejection handler that swallows one error class: the thing to stop was already gone. */
export function ignore(type: abstract new (...args: never[]) => Error) {
  return (error: unknown) => {
    if (error instanceof type) return undefined;
    throw error;
  };
}
