import { z } from 'zod';

/** One node of a network: its JSON-RPC URL and how much it is preferred among the in-sync nodes. */
export interface NodeSetting {
  url: string;
  weight: number;
}

/** A Neo network the deployment follows, as NEOFLOW_NETWORKS (or NEO_RPC_URL, network `default`) gives it. */
export interface NetworkSetting {
  name: string;
  nodes: NodeSetting[];
  /** When given, a node answering another magic is refused; absent, the first node to answer sets it. */
  magic?: number;
}

const maxNetworks = 16;
const maxNodes = 16;
const defaultWeight = 1;

const nodeUrl = z
  .string()
  .trim()
  .max(2048)
  .refine((value) => URL.canParse(value) && ['http:', 'https:'].includes(new URL(value).protocol), {
    message: 'must be an http(s) URL',
  });

const networkSchema = z.strictObject({
  name: z.string().regex(/^[a-z0-9][a-z0-9-]{0,31}$/, { message: 'must be 1-32 lower-case letters, digits or dashes' }),
  rpc: z
    .array(z.union([nodeUrl, z.strictObject({ url: nodeUrl, weight: z.number().int().min(1).max(1000).optional() })]))
    .min(1)
    .max(maxNodes),
  magic: z
    .number()
    .int()
    .min(0)
    .max(2 ** 32 - 1)
    .optional(),
});

const networksSchema = z.array(networkSchema).min(1).max(maxNetworks);

/** Where in the JSON a problem is, as `[1].rpc[0].url`. */
const pathOf = (path: PropertyKey[]) =>
  path.map((key) => (typeof key === 'number' ? `[${key}]` : `.${String(key)}`)).join('');

/**
 * NEOFLOW_NETWORKS: `[{"name", "rpc": [url | {url, weight}], "magic"?}]`. Throws an Error whose
 * message names the entry and field at fault.
 */
export function parseNeoNetworks(text: string): NetworkSetting[] {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new Error('must be a JSON array such as [{"name":"mainnet","rpc":["https://node.example.com:10332"]}]');
  }
  const parsed = networksSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new Error(`${pathOf(issue.path) || 'value'}: ${issue.message}`);
  }
  const networks = parsed.data.map(({ name, rpc, magic }) => ({
    name,
    magic,
    nodes: rpc.map((node) =>
      typeof node === 'string' ? { url: node, weight: defaultWeight } : { url: node.url, weight: node.weight ?? 1 },
    ),
  }));
  const names = new Set<string>();
  for (const network of networks) {
    if (names.has(network.name)) throw new Error(`network "${network.name}" is listed twice`);
    names.add(network.name);
    const urls = new Set(network.nodes.map((node) => node.url));
    if (urls.size !== network.nodes.length) throw new Error(`network "${network.name}" lists a URL twice`);
  }
  return networks;
}

/**
 * What NEOFLOW_NETWORKS, NEO_RPC_URL and NEOFLOW_BLOCK_AGREEMENT say together that one alone does
 * not: NEO_RPC_URL beside the networks must be one of their nodes (`neoflow up` passes the first
 * on), and the agreement cannot ask for more nodes than a network has.
 */
export function neoSettingIssues(
  networks: NetworkSetting[] | undefined,
  rpcUrl: string | undefined,
  agreement: number,
): { path: string[]; message: string }[] {
  const issues: { path: string[]; message: string }[] = [];
  if (networks && rpcUrl && !networks.some((network) => network.nodes.some((node) => node.url === rpcUrl))) {
    issues.push({
      path: ['NEO_RPC_URL'],
      message: 'is the one-network shorthand: with NEOFLOW_NETWORKS set, leave it unset (or one of its URLs)',
    });
  }
  const mostNodes = Math.max(1, ...(networks ?? []).map((network) => network.nodes.length));
  if (agreement > mostNodes) {
    issues.push({
      path: ['NEOFLOW_BLOCK_AGREEMENT'],
      message: `must be at most the nodes of a network (${mostNodes})`,
    });
  }
  return issues;
}

/** NEO_RPC_URL alone: one network, `default`, of one node. */
export const shorthandNetwork = (url: string): NetworkSetting[] => [
  { name: 'default', nodes: [{ url, weight: defaultWeight }] },
];

/** A node's URL as logs, metrics and `/v1/health` show it: no user, password, path or query. */
export function shownUrl(url: string): string {
  try {
    const { protocol, host } = new URL(url);
    return `${protocol}//${host}`;
  } catch {
    return 'invalid-url';
  }
}
