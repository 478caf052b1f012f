import type { Config } from '../config.ts';
import { apiOf, expectStatus, listAll, type Api, type ApiAnswer } from './api-client.ts';

interface Listed {
  id: string;
  name: string;
  [field: string]: unknown;
}

/** How a resource is listed, read and shown in a line. */
interface Resource {
  path: string;
  scope: string;
  items: (body: ApiAnswer['body']) => unknown;
  line: (item: Listed) => string;
  /** The resource in one answer's body. */
  one: (body: ApiAnswer['body']) => unknown;
}

const resources: Record<string, Resource> = {
  functions: {
    path: '/v1/functions',
    scope: 'functions:read',
    items: (body) => body.data,
    line: (fn) => `${fn.id}  ${fn.name}  ${String(fn.runtime)}  updated ${String(fn.updatedAt)}`,
    one: (body) => body.data,
  },
  automations: {
    path: '/v1/automations',
    scope: 'automations:read',
    items: (body) => body.automations,
    line: (automation) => {
      const { trigger, action } = automation as unknown as { trigger: { type: string }; action: { type: string } };
      // Its network beside its status: the chain it follows and sends on (docs/deployment.md).
      return `${automation.id}  ${automation.name}  ${String(automation.status)}  ${String(automation.network)}  ${trigger.type} → ${action.type}`;
    },
    one: (body) => body,
  },
  secrets: {
    path: '/v1/secrets',
    scope: 'secrets:read',
    items: (body) => body.secrets,
    line: (secret) => `${secret.id}  ${secret.name}  updated ${String(secret.updatedAt)}`,
    one: (body) => body,
  },
};

/**
 * `neoflow functions|automations|secrets list|get <name|id>`: a quick look through the API with
 * NEOFLOW_API_KEY. `list` prints a line a resource; `get` the API's answer for one, as JSON
 * (a secret without its value, an automation's credentials masked, as the API shows them).
 */
export async function resourceCommand(config: Config, kind: string, [action, which]: string[]) {
  const resource = resources[kind]!;
  const usage = `usage: neoflow ${kind} list | neoflow ${kind} get <name|id>`;
  if (action !== 'list' && action !== 'get') throw new Error(usage);
  const api = apiOf(config, `${kind} ${action}`, resource.scope);
  const all = await listAll<Listed>(api, resource.path, resource.items);
  if (action === 'list') {
    process.stdout.write(all.length === 0 ? `no ${kind}\n` : all.map((item) => `${resource.line(item)}\n`).join(''));
    return;
  }
  if (!which) throw new Error(usage);
  const found = all.filter(({ id, name }) => id === which || name === which);
  if (found.length === 0) throw new Error(`no ${kind.slice(0, -1)} named or with id ${which}`);
  if (found.length > 1)
    throw new Error(
      `${found.length} ${kind} are named ${which} (${found.map(({ id }) => id).join(', ')}): get one by id`,
    );
  process.stdout.write(`${JSON.stringify(await getOne(api, resource, found[0]!.id), null, 2)}\n`);
}

async function getOne(api: Api, resource: Resource, id: string) {
  return resource.one(await expectStatus(api('GET', `${resource.path}/${id}`), 200, `GET ${resource.path}/${id}`));
}
