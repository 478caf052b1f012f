import { rpcErrorCode } from '../rpc.ts';
import { createBatchCaller, resultOf, type BatchCaller } from './rpc-batch.ts';
import { methodNotFound } from './rpc-failure.ts';

/**
 * What a node can do: `neo-go` follows blocks by `getblocknotifications`; `csharp` (neo-cli with
 * RpcServer and ApplicationLogs) by `getblock` and `getapplicationlog`; `csharp-no-logs` lacks
 * ApplicationLogs, so it sends and reads state but never serves the follower.
 */
export type NodeKind = 'neo-go' | 'csharp' | 'csharp-no-logs';

export interface NodeProbe {
  magic: number;
  useragent: string;
  kind: NodeKind;
}

interface Version {
  useragent?: string;
  protocol?: { network?: number };
}

/**
 * Asks a node who it is, in one batch: `getversion` (its magic and user agent),
 * `getblocknotifications` of block 0 (only neo-go has it) and `listplugins` (only a C# node has it).
 * The user agent alone is not trusted: a proxy or a fork may say anything.
 */
export async function probeNode(url: string, batch: BatchCaller = createBatchCaller(url, 5000)): Promise<NodeProbe> {
  const [versionAnswer, hashAnswer] = await batch([
    { method: 'getversion', params: [] },
    { method: 'getblockhash', params: [0] },
  ]);
  const version = resultOf<Version>(versionAnswer!);
  const magic = version.protocol?.network;
  if (typeof magic !== 'number') throw new Error('getversion answered no protocol.network');
  const useragent = String(version.useragent ?? '');
  const genesis = resultOf<string>(hashAnswer!);
  const [notifications, plugins] = await batch([
    { method: 'getblocknotifications', params: [genesis] },
    { method: 'listplugins', params: [] },
  ]);
  if ('result' in notifications!) return { magic, useragent, kind: 'neo-go' };
  if (rpcErrorCode(notifications!.error) !== methodNotFound) throw notifications!.error;
  const names = 'result' in plugins! && Array.isArray(plugins.result) ? plugins.result : [];
  const hasLogs = names.some((plugin: { name?: unknown }) => plugin?.name === 'ApplicationLogs');
  return { magic, useragent, kind: hasLogs ? 'csharp' : 'csharp-no-logs' };
}

/** Read from the user agent only, for the log line: `/Neo:3.8.2/` or `/NEO-GO:0.110.0/`. */
export const softwareOf = (useragent: string) =>
  /^\/NEO-GO:/i.test(useragent) ? 'neo-go' : /^\/Neo:3\./.test(useragent) ? 'neo-cli' : 'unknown';
