/** A response body of any area, read loosely: tests assert on its shape. */
export interface Envelope<T = any> {
  success?: boolean;
  data?: T;
  pagination?: { total: number; limit: number; offset: number; hasMore?: boolean };
  error?: { code: string; message: string; details: Record<string, unknown> };
}

/**
 * One JSON call under `/v1` of the API; `apiKey` makes it as another account than the bound one.
 * `T` is what the test expects of the body's `data`.
 */
export type ApiCall = <T = any>(
  method: string,
  path: string,
  body?: unknown,
  apiKey?: string,
) => Promise<{ status: number; body: Envelope<T> }>;

/** The JSON calls of one account's `key` to the API at `baseUrl` (ending before `/v1`). */
export function testApi(baseUrl: string, key: string): ApiCall {
  return async <T>(method: string, path: string, body?: unknown, apiKey = key) => {
    const response = await fetch(`${baseUrl}/v1${path}`, {
      method,
      headers: { 'X-API-Key': apiKey, 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as Envelope<T> };
  };
}
