/** What every error of the API holds, in both of its shapes (docs/api.md, "Conventions"). */
export interface ErrorDetail {
  code: string;
  message: string;
  details?: unknown;
}

/**
 * A request the API answered with an error status. `code` is the API's own (lower-case in the
 * functions area, health and account; upper-case in automations and secrets); `details` what the
 * API adds for that code. Narrow by operation with {@link isErrorOf}, then by `code`.
 */
export class NeoflowError<Detail extends ErrorDetail = ErrorDetail> extends Error {
  override readonly name = 'NeoflowError';
  readonly status: number;
  readonly code: Detail['code'];
  readonly details: Detail['details'];
  /** The answer's `X-Request-Id`: quote it when reporting a 500. */
  readonly requestId: string | undefined;
  /** Seconds the API asked to wait (`Retry-After`), when it did. */
  readonly retryAfter: number | undefined;

  constructor(status: number, detail: Detail, headers: Headers) {
    super(detail.message);
    this.status = status;
    this.code = detail.code;
    this.details = detail.details;
    this.requestId = headers.get('X-Request-Id') ?? undefined;
    const retryAfter = Number(headers.get('Retry-After') ?? Number.NaN);
    this.retryAfter = Number.isFinite(retryAfter) ? retryAfter : undefined;
  }
}

/** The detail of an error body in either shape: `{success: false, error}` or `{error}`. */
type DetailOf<Body> = Body extends { error: infer Detail extends ErrorDetail } ? Detail : never;

/** The errors of an operation's declared answers, one member per code: `switch (error.code)` narrows `details`. */
export type ErrorOf<Operation extends (...args: never[]) => unknown> =
  DetailOf<DeclaredErrors<Operation>> extends infer Detail
    ? Detail extends ErrorDetail
      ? NeoflowError<Detail> & { readonly code: Detail['code']; readonly details: Detail['details'] }
      : never
    : never;

/** The error bodies a generated operation declares (the `error` of its answer when it does not throw). */
type DeclaredErrors<Operation extends (...args: never[]) => unknown> =
  Awaited<ReturnType<Operation>> extends infer Result ? (Result extends { error: infer Body } ? Body : never) : never;

/**
 * Whether `error` is an error answer of the API, typed as `operation` declares its errors. The
 * check is the class's: the API's answers are validated against the document by its own tests.
 */
export function isErrorOf<Operation extends (...args: never[]) => unknown>(
  error: unknown,
  _operation: Operation,
): error is ErrorOf<Operation> {
  return error instanceof NeoflowError;
}

/** The detail of an error answer, or a stand-in when the body is not the API's (a proxy's page). */
export function errorDetailOf(body: unknown, status: number): ErrorDetail {
  const detail = typeof body === 'object' && body !== null && 'error' in body ? body.error : undefined;
  if (typeof detail === 'object' && detail !== null && 'code' in detail && typeof detail.code === 'string')
    return detail as ErrorDetail;
  return { code: 'unexpected_response', message: `HTTP ${status}`, details: { body } };
}
