import { NeoRpcError } from '../rpc.ts';

/** One JSON-RPC call of a batch. */
export interface BatchCall {
  method: string;
  params: unknown[];
}

/** Each call's answer, in the calls' order: its result, or its error as thrown by a single call. */
export type BatchAnswer = { result: unknown } | { error: NeoRpcError };

/** A C# node refuses a request over 1 MiB; a batch is cut below it, with room for the envelope. */
const requestCapBytes = 1024 * 1024 - 4096;

/** Sends `calls` to `url` in as few batched requests as the cap allows, one after another. */
export type BatchCaller = (calls: BatchCall[], signal?: AbortSignal) => Promise<BatchAnswer[]>;

export function createBatchCaller(url: string, timeoutMs = 10_000): BatchCaller {
  return async (calls, signal) => {
    const answers: BatchAnswer[] = [];
    for (const chunk of cutUnderCap(calls)) {
      const timeout = AbortSignal.timeout(timeoutMs);
      answers.push(...(await postBatch(url, chunk, signal ? AbortSignal.any([timeout, signal]) : timeout)));
    }
    return answers;
  };
}

/** `calls` in order, cut into requests under the cap of at most `maxCalls` calls each. */
export function cutUnderCap(calls: BatchCall[], maxCalls = Infinity): BatchCall[][] {
  const chunks: BatchCall[][] = [];
  let chunk: BatchCall[] = [];
  let bytes = 0;
  for (const call of calls) {
    const size = Buffer.byteLength(JSON.stringify(call.params)) + call.method.length + 64;
    if (chunk.length > 0 && (bytes + size > requestCapBytes || chunk.length >= maxCalls)) {
      chunks.push(chunk);
      chunk = [];
      bytes = 0;
    }
    chunk.push(call);
    bytes += size;
  }
  if (chunk.length > 0) chunks.push(chunk);
  return chunks;
}

interface Reply {
  id?: number;
  result?: unknown;
  error?: { code?: number; message?: string; data?: string };
}

async function postBatch(url: string, calls: BatchCall[], signal: AbortSignal): Promise<BatchAnswer[]> {
  const body = calls.map((call, id) => ({ jsonrpc: '2.0', id, method: call.method, params: call.params }));
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
    signal,
  });
  const methods = calls.map((call) => call.method).join(',');
  if (!response.ok) throw new NeoRpcError(methods, `HTTP ${response.status}`, undefined, response.status);
  const replies: unknown = await response.json();
  if (!Array.isArray(replies))
    throw new NeoRpcError(methods, 'the node answered a batch with no array', undefined, 502);
  // Batches may be answered in any order: each reply names its call.
  const byId = new Map((replies as Reply[]).map((reply) => [reply.id, reply]));
  return calls.map((call, id) => {
    const reply = byId.get(id);
    if (!reply) return { error: new NeoRpcError(call.method, 'no answer in the batch', undefined, 502) };
    if (reply.error) {
      const { code, message = 'unknown error', data } = reply.error;
      return { error: new NeoRpcError(call.method, data ? `${message}: ${data}` : message, code) };
    }
    return { result: reply.result };
  });
}

/** The result of `answer`, or its error thrown. */
export function resultOf<T>(answer: BatchAnswer): T {
  if ('error' in answer) throw answer.error;
  return answer.result as T;
}
