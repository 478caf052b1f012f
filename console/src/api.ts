/**
 * The console's one way to the API: same origin, the session cookie sent by the browser (the page
 * never sees it, nor the key), and the console's header on every change, without which the API
 * refuses a change made with a session (src/api/auth.ts).
 */

export class ApiError extends Error {
  readonly status: number;
  readonly code: string;

  constructor(status: number, code: string, message: string) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
  }
}

/** What any error body of the API holds: `{error: {code, message}}`, enveloped or bare. */
function errorOf(status: number, body: unknown): ApiError {
  const error = (body as { error?: { code?: unknown; message?: unknown } } | null)?.error;
  const code = typeof error?.code === 'string' ? error.code.toLowerCase() : 'http_' + status;
  const message = typeof error?.message === 'string' ? error.message : `The API answered ${status}.`;
  return new ApiError(status, code, message);
}

export interface Request {
  method?: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  body?: unknown;
  /** Only for the login: the key, sent once, in a header, never kept. */
  key?: string;
}

export async function api<T>(path: string, request: Request = {}): Promise<T> {
  const method = request.method ?? 'GET';
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (method !== 'GET') headers['X-Neoflow-Console'] = '1';
  if (request.body !== undefined) headers['Content-Type'] = 'application/json';
  if (request.key !== undefined) headers.Authorization = `Bearer ${request.key}`;
  const response = await fetch(`/v1${path}`, {
    method,
    headers,
    credentials: 'same-origin',
    cache: 'no-store',
    ...(request.body === undefined ? {} : { body: JSON.stringify(request.body) }),
  });
  const body: unknown = response.status === 204 ? null : await response.json().catch(() => null);
  if (!response.ok) throw errorOf(response.status, body);
  return body as T;
}

/** The functions area answers `{success, data}`; the others answer bare bodies. */
export const data = <T>(enveloped: { data: T }) => enveloped.data;
