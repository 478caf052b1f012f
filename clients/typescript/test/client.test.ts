import { describe, expect, it } from 'vitest';
import {
  createNeoflowClient,
  getFunctions,
  getFunctionsById,
  isErrorOf,
  NeoflowError,
  paginate,
  postFunctions,
  retryAfterMs,
} from '../src/index.ts';

interface Sent {
  method: string;
  url: string;
  headers: Headers;
  body: string;
}

/** A `fetch` answering from a script, recording what it was sent. */
function scriptedFetch(answers: Response[]) {
  const sent: Sent[] = [];
  const send = async (input: string | URL | Request, init?: RequestInit) => {
    const request = new Request(input, init);
    sent.push({ method: request.method, url: request.url, headers: request.headers, body: await request.text() });
    const answer = answers.shift();
    if (!answer) throw new Error('no answer left');
    return answer;
  };
  return { sent, fetch: send };
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json', ...headers } });

const rateLimited = (retryAfter: string) =>
  json(
    429,
    { success: false, error: { code: 'rate_limit_exceeded', message: 'Slow down.', details: { retryAfter: 1 } } },
    { 'Retry-After': retryAfter, 'X-Request-Id': 'req_1' },
  );

const created = { success: true, data: { id: 'func_1', name: 'a' } };
const body = { name: 'a', runtime: 'node18' as const, code: 'module.exports = async () => 1' };

describe('the TypeScript client layer', () => {
  it('sends the key, and retries a 429 after its Retry-After under the same Idempotency-Key', async () => {
    const { sent, fetch } = scriptedFetch([rateLimited('1'), json(201, created)]);
    const client = createNeoflowClient({ baseUrl: 'http://api.test/', apiKey: 'nf_key', fetch });
    const started = Date.now();
    const { data } = await postFunctions({ client, body });
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    expect(data).toEqual(created);
    expect(sent.map(({ method, url }) => `${method} ${url}`)).toEqual([
      'POST http://api.test/v1/functions',
      'POST http://api.test/v1/functions',
    ]);
    expect(sent[0].headers.get('Authorization')).toBe('Bearer nf_key');
    const key = sent[0].headers.get('Idempotency-Key');
    expect(key).toMatch(/^[0-9a-f-]{36}$/);
    expect(sent[1].headers.get('Idempotency-Key')).toBe(key);
    expect(sent[1].body).toBe(sent[0].body);
  });

  it('keeps a caller-given Idempotency-Key, and gives none to an operation the document marks not', async () => {
    const { sent, fetch } = scriptedFetch([
      json(201, created),
      json(200, { success: true, data: [], pagination: { total: 0, limit: 20, offset: 0, hasMore: false } }),
    ]);
    const client = createNeoflowClient({ baseUrl: 'http://api.test', fetch });
    await postFunctions({ client, body, headers: { 'Idempotency-Key': 'mine' } });
    await getFunctions({ client });
    expect(sent.map(({ headers }) => headers.get('Idempotency-Key'))).toEqual(['mine', null]);
  });

  it('retries a 503 with backoff when no Retry-After is given, at most `retries` times', async () => {
    const unavailable = () =>
      json(503, { success: false, error: { code: 'service_unavailable', message: 'Down.', details: {} } });
    const { sent, fetch } = scriptedFetch([unavailable(), unavailable(), unavailable()]);
    const client = createNeoflowClient({ baseUrl: 'http://api.test', fetch, retry: { retries: 2, baseDelayMs: 1 } });
    const failed = await getFunctionsById({ client, path: { id: 'func_1' } }).catch((error: unknown) => error);
    expect(sent).toHaveLength(3);
    expect(failed).toBeInstanceOf(NeoflowError);
    expect(failed).toMatchObject({ status: 503, code: 'service_unavailable' });
  });

  it('throws at once, typed, when Retry-After asks for longer than the longest wait accepted', async () => {
    const { sent, fetch } = scriptedFetch([rateLimited('120')]);
    const client = createNeoflowClient({ baseUrl: 'http://api.test', fetch });
    const failed = await getFunctionsById({ client, path: { id: 'func_1' } }).catch((error: unknown) => error);
    expect(sent).toHaveLength(1);
    if (!isErrorOf(failed, getFunctionsById)) throw new Error('not a NeoflowError');
    expect(failed).toMatchObject({
      status: 429,
      code: 'rate_limit_exceeded',
      message: 'Slow down.',
      details: { retryAfter: 1 },
      requestId: 'req_1',
      retryAfter: 120,
    });
  });

  it('reads both error shapes, and stands in for a body that is not the API’s', async () => {
    const { fetch } = scriptedFetch([
      json(404, { error: { code: 'NOT_FOUND', message: 'No such automation.', details: {} } }),
      new Response('<html>Bad gateway</html>', { status: 502 }),
    ]);
    const client = createNeoflowClient({ baseUrl: 'http://api.test', fetch });
    const caught = (promise: Promise<unknown>) => promise.catch((error: unknown) => error);
    expect(await caught(getFunctionsById({ client, path: { id: 'x' } }))).toMatchObject({ code: 'NOT_FOUND' });
    expect(await caught(getFunctionsById({ client, path: { id: 'x' } }))).toMatchObject({
      status: 502,
      code: 'unexpected_response',
      details: { body: '<html>Bad gateway</html>' },
    });
  });

  it('iterates every item of a list, page after page, from the offset given', async () => {
    const page = (ids: string[], offset: number, hasMore: boolean) =>
      json(200, {
        success: true,
        data: ids.map((id) => ({ id })),
        pagination: { total: 5, limit: 2, offset, hasMore },
      });
    const { sent, fetch } = scriptedFetch([page(['b', 'c'], 1, true), page(['d', 'e'], 3, false)]);
    const client = createNeoflowClient({ baseUrl: 'http://api.test', fetch });
    const ids: string[] = [];
    for await (const fn of paginate(getFunctions, { client, query: { limit: 2, offset: 1, tag: 't' } }))
      ids.push(fn.id);
    expect(ids).toEqual(['b', 'c', 'd', 'e']);
    expect(sent.map(({ url }) => new URL(url).search)).toEqual(['?limit=2&offset=1&tag=t', '?limit=2&offset=3&tag=t']);
  });

  it('reads Retry-After as seconds or as an HTTP date', () => {
    expect(retryAfterMs('3')).toBe(3000);
    expect(retryAfterMs(new Date(10_000).toUTCString(), 4_000)).toBe(6000);
    expect(retryAfterMs('soon')).toBeUndefined();
    expect(retryAfterMs(null)).toBeUndefined();
  });
});
