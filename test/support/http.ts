/** A response body of any area, read loosely: tests assert on its shape. */
export interface Envelope {
  success?: boolean;
  data?: any;
  pagination?: { total: number; limit: number; offset: number; hasMore?: boolean };
  error?: { code: string; message: string; details: Record<string, unknown> };
}

/** One JSON call to the API at `baseUrl` (ending before `/v1`) with an API key. */
export async function callApi(baseUrl: string, key: string, method: string, path: string, body?: unknown) {
  const response = await fetch(`${baseUrl}/v1${path}`, {
    method,
    headers: { 'X-API-Key': key, 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Envelope };
}
