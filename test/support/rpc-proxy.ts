import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { closeServer } from './close-server.ts';

/**
 * How a proxy in front of a neo-go node behaves. `csharp` emulates a C# neo-cli node with RpcServer
 * and ApplicationLogs (`no-logs`: without ApplicationLogs): no C# node can be built here, so its RPC
 * behaviour is played in front of neo-go, as issue 45 describes it: `getblocknotifications` answers
 * -32601, an unknown hash in `getapplicationlog` -32602 (neo-go: -105), the newest block's log
 * -32602 once (a C# node commits its log store after the ledger), a block not produced yet -101
 * ("Unknown block", neo-go: -109), `listplugins` answers, and the user agent is `/Neo:3.x/`.
 */
export interface ProxyBehaviour {
  csharp?: boolean | 'no-logs';
  /** `getversion` answers this magic instead of the node's. */
  magic?: number;
  /** `getblockcount` answers this many blocks fewer than the node's. */
  lagBlocks?: number;
  /** With `csharp`: false when the newest block's log answers at once (the log store kept up). */
  lateLogs?: boolean;
  /** `getblockhash` and `getblock` answer another hash for every block from this index on: a broken node. */
  lieFrom?: number;
}

export interface RpcProxy {
  url: string;
  /** Every JSON-RPC method asked, in order (a batch's one by one). */
  methods: string[];
  /** Every HTTP request's methods (a single call's one), in order. */
  requests: string[][];
  behaviour: ProxyBehaviour;
  /** How many times the newest block's log answered -32602 ("not yet"). */
  readonly notYetAnswers: number;
  /** Stops listening and cuts every connection: a node gone. */
  close(): Promise<void>;
  /** Listens again on the same port. */
  reopen(): Promise<void>;
}

interface Call {
  jsonrpc?: string;
  id?: unknown;
  method: string;
  params?: unknown[];
}

interface Reply {
  jsonrpc: '2.0';
  id: unknown;
  result?: unknown;
  error?: { code: number; message: string; data?: string };
}

const invalidParams = (id: unknown): Reply => ({
  jsonrpc: '2.0',
  id,
  error: { code: -32602, message: 'Invalid params', data: 'Unknown transaction/blockhash' },
});

/** A loopback JSON-RPC proxy in front of `target` (a neo-go node), behaving as `behaviour` says. */
export async function startRpcProxy(target: string, behaviour: ProxyBehaviour = {}): Promise<RpcProxy> {
  const methods: string[] = [];
  const requests: string[][] = [];
  const logsAskedOnce = new Set<string>();
  let notYetAnswers = 0;
  const forward = async (call: Call): Promise<Reply> => {
    const response = await fetch(target, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: call.id ?? 1, method: call.method, params: call.params ?? [] }),
    });
    return (await response.json()) as Reply;
  };
  const isNewestBlock = async (hash: string) => {
    const header = await forward({ id: 0, method: 'getblockheader', params: [hash, 1] });
    return !header.error && (header.result as { confirmations: number }).confirmations <= 1;
  };
  const answer = async (call: Call): Promise<Reply> => {
    methods.push(call.method);
    const { csharp, magic, lagBlocks, lateLogs = true, lieFrom } = behaviour;
    if (csharp && call.method === 'getblocknotifications') {
      return { jsonrpc: '2.0', id: call.id, error: { code: -32601, message: 'Method not found' } };
    }
    if (csharp && call.method === 'listplugins') {
      const plugins = [{ name: 'RpcServer', version: '3.8.2.0', interfaces: [] }];
      if (csharp !== 'no-logs') plugins.push({ name: 'ApplicationLogs', version: '3.8.2.0', interfaces: [] });
      return { jsonrpc: '2.0', id: call.id, result: plugins };
    }
    if (csharp === 'no-logs' && call.method === 'getapplicationlog') {
      return { jsonrpc: '2.0', id: call.id, error: { code: -32601, message: 'Method not found' } };
    }
    const reply = await forward(call);
    if (call.method === 'getversion' && reply.result) {
      const version = reply.result as { useragent: string; protocol: { network: number } };
      if (csharp) version.useragent = '/Neo:3.8.2/';
      if (magic !== undefined) version.protocol.network = magic;
    }
    if (call.method === 'getblockcount' && lagBlocks && typeof reply.result === 'number') {
      reply.result = Math.max(1, reply.result - lagBlocks);
    }
    if (csharp && call.method === 'getblock' && reply.error?.code === -109) {
      return { jsonrpc: '2.0', id: call.id, error: { code: -101, message: 'Unknown block' } };
    }
    if (lieFrom !== undefined && (call.method === 'getblockhash' || call.method === 'getblock')) {
      const block = reply.result as { hash: string; index: number } | undefined;
      const index = call.method === 'getblockhash' ? Number(call.params?.[0]) : block?.index;
      if (index !== undefined && index >= lieFrom && reply.result) {
        if (call.method === 'getblockhash') reply.result = otherHash(reply.result as string);
        else block!.hash = otherHash(block!.hash);
      }
    }
    if (csharp && call.method === 'getapplicationlog') {
      if (reply.error) return invalidParams(call.id);
      const hash = String(call.params?.[0]).toLowerCase();
      const ofBlock = (reply.result as { executions: { trigger: string }[] }).executions.some(
        (execution) => execution.trigger === 'OnPersist',
      );
      if (ofBlock && lateLogs && !logsAskedOnce.has(hash) && (await isNewestBlock(hash))) {
        logsAskedOnce.add(hash);
        notYetAnswers++;
        return invalidParams(call.id);
      }
    }
    return reply;
  };
  const server = createServer((request, response) => {
    void (async () => {
      try {
        const body = JSON.parse(await bodyOf(request)) as Call | Call[];
        requests.push((Array.isArray(body) ? body : [body]).map((call) => call.method));
        const replies = Array.isArray(body) ? await Promise.all(body.map(answer)) : await answer(body);
        response.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(replies));
      } catch (error) {
        response.writeHead(502).end(String(error));
      }
    })();
  });
  const listen = (port: number) =>
    new Promise<void>((resolveListen, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        resolveListen();
      });
    });
  await listen(0);
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    methods,
    requests,
    behaviour,
    get notYetAnswers() {
      return notYetAnswers;
    },
    close: () => closeServer(server),
    reopen: () => listen(port),
  };
}

/** The same hash with its last digit changed. */
const otherHash = (hash: string) => `${hash.slice(0, -1)}${hash.endsWith('0') ? '1' : '0'}`;

function bodyOf(request: IncomingMessage): Promise<string> {
  return new Promise((resolveBody, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolveBody(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}
