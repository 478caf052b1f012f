import type { Config } from '../config.ts';
import { pairs, readFunctionFile } from './function-file.ts';
import type { FnDeployOptions } from './options.ts';

const usage =
  'usage: neoflow fn deploy <file.js|file.ts> --name NAME [--secrets A,B] [--env K=V]... [--allowed-hosts H1,H2] (NEOFLOW_API_URL, NEOFLOW_API_KEY)';

// Each request of the command waits this long at most: the API answers a save in milliseconds.
const requestTimeoutMs = 30_000;

interface Answer {
  status: number;
  body: { data?: Record<string, unknown>[] | Record<string, unknown>; error?: ApiError };
}

interface ApiError {
  code: string;
  message: string;
  details?: { line?: number; column?: number; field?: string };
}

/**
 * `neoflow fn deploy <file> --name NAME`: creates the account's function of that name from the
 * file, or updates it when it exists (its code and runtime, and the environment, secrets and
 * allowed hosts when flags give them), through the API with `NEOFLOW_API_KEY`. Prints the function's id and the
 * version the save made.
 */
export async function fnDeployCommand(config: Config, file: string | undefined, options: FnDeployOptions) {
  if (!file || !options.name) throw new Error(usage);
  const { apiUrl, apiKey } = config.client;
  if (!apiKey) throw new Error('fn deploy needs NEOFLOW_API_KEY, a key with functions:read and functions:write');
  const { code, runtime } = await readFunctionFile(file);
  const fields = {
    code,
    runtime,
    ...(options.env === undefined ? {} : { environment: pairs(options.env, '--env') }),
    ...(options.secrets === undefined ? {} : { secrets: list(options.secrets) }),
    ...(options.allowedHosts === undefined ? {} : { allowedHosts: list(options.allowedHosts) }),
  };
  const api = (method: string, path: string, body?: unknown) => request(apiUrl, apiKey, method, path, body);
  const existing = await findByName(api, options.name);
  let saved = existing
    ? await api('PUT', `/v1/functions/${existing}`, fields)
    : await api('POST', '/v1/functions', { name: options.name, ...fields });
  // Created by someone else between the lookup and the create: update it instead.
  if (!existing && saved.status === 409) {
    const created = await findByName(api, options.name);
    if (created) saved = await api('PUT', `/v1/functions/${created}`, fields);
  }
  const data = saved.body.data as Record<string, unknown> | undefined;
  if (saved.status >= 300 || !data) throw new Error(describe(saved, file));
  const printed = {
    id: data.id,
    name: data.name,
    version: data.version,
    created: existing === undefined && saved.status === 201,
  };
  process.stdout.write(`${JSON.stringify(printed, null, 2)}\n`);
}

async function findByName(
  api: (method: string, path: string) => Promise<Answer>,
  name: string,
): Promise<string | undefined> {
  const found = await api('GET', `/v1/functions?name=${encodeURIComponent(name)}&limit=1`);
  if (found.status !== 200 || !Array.isArray(found.body.data)) throw new Error(describe(found));
  return found.body.data[0]?.id as string | undefined;
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
  let parsed: Answer['body'];
  try {
    parsed = JSON.parse(text) as Answer['body'];
  } catch {
    throw new Error(`the API at ${apiUrl} answered ${response.status} with something other than JSON`);
  }
  return { status: response.status, body: parsed };
}

/** The API's error as one line; a code's syntax error points at its place in the file. */
function describe(answer: Answer, file?: string): string {
  const error = answer.body.error;
  if (!error) return `the API answered ${answer.status}`;
  const { line, column } = error.details ?? {};
  const place = file && line !== undefined ? ` (${file}:${line}${column === undefined ? '' : `:${column}`})` : '';
  return `${error.code}: ${error.message}${place}`;
}

function list(csv: string): string[] {
  return csv
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}
