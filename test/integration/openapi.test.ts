import { request } from 'node:http';
import type { Router } from '@koa/router';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app/app.ts';
import { openApiPath } from '../../src/api/openapi.ts';
import { startTestApi, type TestApi } from '../support/api.ts';
import { testApi, type Envelope } from '../support/http.ts';
import { issueKey } from '../support/keys.ts';
import { startValidatingProxy } from '../support/validating-proxy.ts';

let api: TestApi;
let document: {
  openapi: string;
  paths: Record<string, Record<string, any>>;
  components: { schemas: Record<string, any> };
};
beforeAll(async () => {
  api = await startTestApi();
  const answer = await fetch(`${api.url}/v1/openapi.json`);
  expect(answer.status).toBe(200);
  document = (await answer.json()) as typeof document;
});
afterAll(() => api.close());

/** Every method and path the app's router really answers, as the document spells paths. */
function routesOfApp(): string[] {
  const app = createApp(api.services);
  const dispatch = app.middleware.find((middleware) => 'router' in middleware) as unknown as { router: Router };
  return dispatch.router.stack.flatMap((layer) =>
    layer.methods.filter((method) => method !== 'HEAD').map((method) => `${method} ${openApiPath(String(layer.path))}`),
  );
}

/** A schema, or the named one it refers to (components.schemas). */
const resolved = (schema: { $ref?: string }): any =>
  schema.$ref ? document.components.schemas[schema.$ref.slice('#/components/schemas/'.length)] : schema;

const operationsOf = (doc: typeof document) =>
  Object.entries(doc.paths).flatMap(([path, operations]) =>
    Object.keys(operations).map((method) => `${method.toUpperCase()} ${path}`),
  );

describe('the OpenAPI document at /v1/openapi.json', () => {
  it('lists exactly the routes the app answers, no more and no fewer', () => {
    // Besides the API: the page that renders this document, the web console's page, and Prometheus' text for operators.
    const besides = (operation: string) => / \/(docs|metrics|console)\b/.test(operation);
    const documented = operationsOf(document);
    const answered = routesOfApp().filter((operation) => !besides(operation));
    expect(new Set(documented)).toEqual(new Set(answered));
    expect(answered.length).toBeGreaterThanOrEqual(31);
    // The areas of the interface, all of them.
    for (const operation of [
      'POST /v1/functions/{id}/invoke',
      'GET /v1/functions/{id}/executions/{executionId}',
      'POST /v1/functions/{id}/versions/{version}/promote',
      'POST /v1/secrets',
      'PATCH /v1/automations/{id}',
      'GET /v1/automations/{id}/runs',
      'POST /v1/automations/{id}/replays',
      'GET /v1/automations/{id}/replays/{replayId}',
      'GET /v1/account',
    ])
      expect(documented).toContain(operation);
  });

  it('describes requests, answers, errors, keys and idempotency from the schemas the routes validate with', () => {
    expect(document.openapi).toBe('3.1.0');
    const invoke = document.paths['/v1/functions/{id}/invoke']!.post;
    expect(invoke.security).toEqual([{ apiKey: [] }, { apiKeyHeader: [] }]);
    expect(invoke.parameters).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ name: 'id', in: 'path', required: true }),
        expect.objectContaining({ name: 'Idempotency-Key', in: 'header' }),
      ]),
    );
    expect(invoke.requestBody.required).toBe(false);
    expect(document.paths['/v1/functions']!.post.requestBody.required).toBe(true);
    const body = resolved(invoke.requestBody.content['application/json'].schema);
    expect(body.properties).toHaveProperty('params');
    expect(body.properties).toHaveProperty('async');
    expect(Object.keys(invoke.responses)).toEqual(
      expect.arrayContaining(['200', '202', '400', '401', '404', '409', '429', '500']),
    );
    expect(invoke.responses['404'].content['application/json'].schema.allOf[0]).toEqual({
      $ref: '#/components/schemas/FunctionsError',
    });
    // The automations area answers errors bare, upper-case codes.
    const created = document.paths['/v1/automations']!.post;
    expect(created.responses['400'].content['application/json'].schema.allOf[0]).toEqual({
      $ref: '#/components/schemas/AutomationsError',
    });
    expect(resolved(created.responses['201'].content['application/json'].schema).properties).toHaveProperty('trigger');
    // A function action that sends: its execute, as the schema the create validates with.
    const action = resolved(resolved(created.requestBody.content['application/json'].schema).properties.action);
    const functionAction = resolved(action.oneOf[0]);
    expect(resolved(functionAction.properties.execute).properties).toHaveProperty('allowedContracts');
    expect(resolved(functionAction.properties.execute).properties).toHaveProperty('maxCalls');
    const listed = document.paths['/v1/functions']!.get;
    expect(listed.parameters.map((parameter: { name: string }) => parameter.name)).toEqual(
      expect.arrayContaining(['limit', 'offset']),
    );
    expect(document.paths['/v1/health']!.get.security).toEqual([]);
  });

  it("accepts the document's own examples: every create, then changes of what they made", async () => {
    const { key } = await issueKey(api.database.orm);
    const call = testApi(api.url, key);
    const examples = (method: string, path: string): unknown[] =>
      Object.values(
        document.paths[path]![method].requestBody.content['application/json'].examples as Record<
          string,
          { value: unknown }
        >,
      ).map((example) => example.value);
    const accepted = async (method: string, path: string, status: number, at = path) => {
      const answers: Envelope[] = [];
      for (const body of examples(method, path)) {
        const answer = await call(method.toUpperCase(), at.replace(/^\/v1/, ''), body);
        expect(answer.status, `${method} ${path} ${JSON.stringify(answer.body)}`).toBe(status);
        answers.push(answer.body);
      }
      return answers;
    };
    // The automations and secrets areas answer the resource bare.
    const idOf = (body: Envelope) => (body as { id?: string }).id;
    // The secret first: the automations' webhooks are signed with it.
    const [secret] = await accepted('post', '/v1/secrets', 201);
    const [fn] = await accepted('post', '/v1/functions', 201);
    const automations = await accepted('post', '/v1/automations', 201);
    expect(automations.length).toBeGreaterThanOrEqual(2);
    await accepted('put', '/v1/secrets/{id}', 200, `/v1/secrets/${idOf(secret!)}`);
    await accepted('put', '/v1/functions/{id}', 200, `/v1/functions/${fn!.data.id}`);
    await accepted('put', '/v1/functions/{id}/environment', 200, `/v1/functions/${fn!.data.id}/environment`);
    const [pause] = examples('patch', '/v1/automations/{id}');
    expect((await call('PATCH', `/automations/${idOf(automations[0]!)}`, pause)).status).toBe(200);
    await accepted('patch', '/v1/account', 200);
  });

  it('lets an X-API-Key request, like a bearer one, through a validating proxy built from the served document', async () => {
    const proxy = await startValidatingProxy(document, api.url);
    try {
      const { key } = await issueKey(api.database.orm);
      const through = (path: string, headers: Record<string, string>, body?: unknown) =>
        fetch(`${proxy.url}${path}`, {
          method: body === undefined ? 'GET' : 'POST',
          headers: { ...headers, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
      const created = await through(
        '/v1/functions',
        { 'X-API-Key': key },
        { name: 'through-proxy', runtime: 'node18', code: 'module.exports = async () => 1;' },
      );
      expect(created.status, await created.clone().text()).toBe(201);
      const listed = await through('/v1/functions?limit=5', { 'X-API-Key': key });
      expect(listed.status).toBe(200);
      expect(((await listed.json()) as Envelope).success).toBe(true);
      expect((await through('/v1/automations', { Authorization: `Bearer ${key}` })).status).toBe(200);
      // The proxy checks: a request without a key never reaches the API.
      const keyless = await through('/v1/functions', {});
      expect(keyless.status).toBe(401);
      expect(await keyless.json()).toMatchObject({ proxy: true });
    } finally {
      await proxy.close();
    }
  });

  it('names the origin it was fetched from as its server, whatever Host a client sends', async () => {
    const { port } = new URL(api.url);
    expect(document).toMatchObject({ servers: [{ url: `http://127.0.0.1:${port}` }] });
    expect((await documentFor('api.example.com:8443')).servers).toEqual([{ url: 'http://api.example.com:8443' }]);
    // A Host no URL can hold names this server relatively, and the JSON is intact.
    expect((await documentFor('evil.example/"}]}<script>')).servers).toEqual([{ url: '/' }]);
  });
});

/** The document as served to a request carrying `host` as its Host header (fetch sets its own). */
function documentFor(host: string): Promise<{ servers: { url: string }[] }> {
  return new Promise((resolve, reject) => {
    const sent = request(`${api.url}/v1/openapi.json`, { headers: { host } }, (answer) => {
      const chunks: Buffer[] = [];
      answer.on('data', (chunk: Buffer) => chunks.push(chunk));
      answer.on('end', () => {
        expect(answer.statusCode).toBe(200);
        resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')) as { servers: { url: string }[] });
      });
    });
    sent.on('error', reject);
    sent.end();
  });
}
