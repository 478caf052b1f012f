import type { Config } from '../config.ts';

// Each request of a command waits this long at most: the API answers a read or a save in milliseconds.
const requestTimeoutMs = 30_000;

/** The most items one list request asks for: the API's bound on `limit`. */
const pageSize = 100;

/** Pages a list request follows at most: 100 000 items, far above any account's quota. */
const maxPages = 1000;

export interface ApiAnswer {
  status: number;
  body: { data?: unknown; error?: ApiError; [field: string]: unknown };
}

interface ApiError {
  code: string;
  message: string;
  details?: { line?: number; column?: number; field?: string };
}

/** One JSON request of the CLI to the API, with the account's key. */
export type Api = (method: string, path: string, body?: unknown) => Promise<ApiAnswer>;

/** The API of NEOFLOW_API_URL with NEOFLOW_API_KEY; `needs` says which scopes the command uses. */
export function apiOf(config: Config, command: string, needs: string): Api {
  const { apiUrl, apiKey } = config.client;
  if (!apiKey) throw new Error(`${command} needs NEOFLOW_API_KEY, a key with ${needs}`);
  return (method, path, body) => request(apiUrl, apiKey, method, path, body);
}

async function request(apiUrl: string, apiKey: string, method: string, path: string, body?: unknown) {
  let response: Response;
  try {
    response = await fetch(`${apiUrl.replace(/\/+$/, '')}${path}`, {
      method,
      headers: { 'X-API-Key': apiKey, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(requestTimeoutMs),
    });
  } catch (error) {
    throw new Error(`cannot reach the API at ${apiUrl} (NEOFLOW_API_URL): ${(error as Error).message}`, {
      cause: error,
    });
  }
  const text = await response.text();
  let parsed: ApiAnswer['body'];
  try {
    parsed = JSON.parse(text) as ApiAnswer['body'];
  } catch {
    throw new Error(`the API at ${apiUrl} answered ${response.status} with something other than JSON`);
  }
  return { status: response.status, body: parsed };
}

/** The API's error as one line; a code's syntax error points at its place in `file`. */
export function describeAnswer(answer: ApiAnswer, file?: string): string {
  const error = answer.body.error;
  if (!error) return `the API answered ${answer.status}`;
  const { line, column } = error.details ?? {};
  const place = file && line !== undefined ? ` (${file}:${line}${column === undefined ? '' : `:${column}`})` : '';
  return `${error.code}: ${error.message}${place}`;
}

/** The answer's body when its status is `expected`; the API's error as an Error otherwise. */
export async function expectStatus(answer: Promise<ApiAnswer>, expected: number, what: string) {
  const got = await answer;
  if (got.status !== expected) throw new Error(`${what}: ${describeAnswer(got)}`);
  return got.body;
}

/**
 * Every item of a list: `items` reads a page's items (the functions area's `data`, the others'
 * named arrays), pages of 100 followed until the pagination says no more.
 */
export async function listAll<T>(api: Api, path: string, items: (body: ApiAnswer['body']) => unknown): Promise<T[]> {
  const all: T[] = [];
  for (let page = 0; page < maxPages; page++) {
    const separator = path.includes('?') ? '&' : '?';
    const body = await expectStatus(
      api('GET', `${path}${separator}limit=${pageSize}&offset=${page * pageSize}`),
      200,
      `GET ${path}`,
    );
    const found = items(body);
    if (!Array.isArray(found)) throw new Error(`GET ${path} answered without a list`);
    all.push(...(found as T[]));
    const pagination = body.pagination as { hasMore?: boolean } | undefined;
    if (!pagination?.hasMore || found.length === 0) return all;
  }
  throw new Error(`GET ${path} holds more than ${maxPages * pageSize} items`);
}
