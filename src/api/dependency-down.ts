/**
 * Whether a request failed because PostgreSQL or Temporal cannot be reached (refused, reset, shut
 * down, out of connections, gRPC UNAVAILABLE): the client did nothing wrong and the same request
 * may succeed shortly, so it is answered 503 with `Retry-After`, not 500.
 */
export function isDependencyDown(thrown: unknown): boolean {
  return causes(thrown).some(
    (error) =>
      networkCodes.has(String(error.code)) ||
      unavailableSqlStates.test(String(error.code ?? error.sqlState)) ||
      (isGrpcError(error) && unavailableGrpcCodes.has(error.code as number)) ||
      poolMessages.test(String(error.message)),
  );
}

type Failure = { code?: unknown; sqlState?: unknown; message?: unknown; details?: unknown; metadata?: unknown };

const networkCodes = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTCONN', 'EHOSTUNREACH']);
/** Class 08 (connection exception), 57P01–57P03 (the server shuts down or starts), 53300 (too many connections). */
const unavailableSqlStates = /^(08[0-9A-Z]{3}|57P0[123]|53300)$/;
/** UNAVAILABLE and DEADLINE_EXCEEDED: the server is not there or did not answer in time. */
const unavailableGrpcCodes = new Set([14, 4]);
/** What node-postgres and its pool say when a connection ends or cannot be had, with no code. */
const poolMessages =
  /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error)/;

const isGrpcError = (error: Failure) => typeof error.code === 'number' && 'metadata' in error && 'details' in error;

/** The error, the errors it wraps (`cause`, an AggregateError's `errors`), a few levels deep. */
function causes(thrown: unknown, depth = 0): Failure[] {
  if (thrown === null || typeof thrown !== 'object' || depth > 4) return [];
  const error = thrown as Failure & { cause?: unknown; errors?: unknown };
  const nested: unknown[] = Array.isArray(error.errors) ? error.errors : [];
  return [error, ...[error.cause, ...nested].flatMap((inner) => causes(inner, depth + 1))];
}
