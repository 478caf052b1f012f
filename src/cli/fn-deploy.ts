import type { Config } from '../config.ts';
import { apiOf, describeAnswer, type Api } from './api-client.ts';
import { pairs, readFunctionFile } from './function-file.ts';
import type { FnDeployOptions } from './options.ts';

const usage =
  'usage: neoflow fn deploy <file.js|file.ts> --name NAME [--secrets A,B] [--env K=V]... [--allowed-hosts H1,H2] (NEOFLOW_API_URL, NEOFLOW_API_KEY)';

/**
 * `neoflow fn deploy <file> --name NAME`: creates the account's function of that name from the
 * file, or updates it when it exists (its code and runtime, and the environment, secrets and
 * allowed hosts when flags give them), through the API with `NEOFLOW_API_KEY`. Prints the function's id and the
 * version the save made.
 */
export async function fnDeployCommand(config: Config, file: string | undefined, options: FnDeployOptions) {
  if (!file || !options.name) throw new Error(usage);
  const api = apiOf(config, 'fn deploy', 'functions:read and functions:write');
  const { code, runtime } = await readFunctionFile(file);
  const fields = {
    code,
    runtime,
    ...(options.env === undefined ? {} : { environment: pairs(options.env, '--env') }),
    ...(options.secrets === undefined ? {} : { secrets: list(options.secrets) }),
    ...(options.allowedHosts === undefined ? {} : { allowedHosts: list(options.allowedHosts) }),
  };
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
  if (saved.status >= 300 || !data) throw new Error(describeAnswer(saved, file));
  const printed = {
    id: data.id,
    name: data.name,
    version: data.version,
    created: existing === undefined && saved.status === 201,
  };
  process.stdout.write(`${JSON.stringify(printed, null, 2)}\n`);
}

async function findByName(api: Api, name: string): Promise<string | undefined> {
  const found = await api('GET', `/v1/functions?name=${encodeURIComponent(name)}&limit=1`);
  const data = found.body.data as { id: string }[] | undefined;
  if (found.status !== 200 || !Array.isArray(data)) throw new Error(describeAnswer(found));
  return data[0]?.id;
}

function list(csv: string): string[] {
  return csv
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}
