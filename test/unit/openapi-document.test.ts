import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterAll, describe, expect, it } from 'vitest';
import { offlineOpenApiDocument } from '../../src/app/openapi-document.ts';
import { apiTags, serverOf } from '../../src/api/openapi-info.ts';

const run = promisify(execFile);
const root = resolve(import.meta.dirname, '../..');
const scratch = await mkdtemp(join(tmpdir(), 'neoflow-openapi-'));
afterAll(() => rm(scratch, { recursive: true, force: true }));

interface Operation {
  parameters?: { name: string; in: string; description?: string }[];
  requestBody?: { content: Record<string, { examples?: object }> };
  summary?: string;
  description?: string;
  tags?: string[];
  responses: Record<string, { description: string }>;
}
const document = offlineOpenApiDocument() as {
  info: { license?: { name: string } };
  servers: { url: string }[];
  tags: { name: string; description: string }[];
  components: { securitySchemes: Record<string, unknown> };
  paths: Record<string, Record<string, Operation>>;
};
const operations = Object.entries(document.paths).flatMap(([path, methods]) =>
  Object.entries(methods).map(([method, operation]) => ({ name: `${method.toUpperCase()} ${path}`, ...operation })),
);

interface LintReport {
  totals: { errors: number; warnings: number };
  problems: { ruleId: string; severity: string; message: string; location: { pointer: string }[] }[];
}

describe('the OpenAPI document, as the typed client is generated from it', () => {
  // Redocly's own process, starting and linting the whole document, is the point: time for a loaded machine.
  it("passes Redocly's recommended rules without an error", { timeout: 30_000 }, async () => {
    const file = join(scratch, 'openapi.json');
    await writeFile(file, JSON.stringify(document));
    const redocly = join(root, 'node_modules/.bin/redocly');
    // Redocly exits 1 on errors; its JSON report says which, on stdout either way.
    const { stdout } = await run(redocly, ['lint', '--extends', 'recommended', '--format', 'json', file], {
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
      maxBuffer: 64 << 20,
    }).catch((failed: { stdout: string }) => failed);
    const report = JSON.parse(stdout) as LintReport;
    const errors = report.problems
      .filter((problem) => problem.severity === 'error')
      .map((problem) => `${problem.ruleId} at ${problem.location[0]?.pointer}: ${problem.message}`);
    expect(errors).toEqual([]);
    expect(report.totals.errors).toBe(0);
  });

  it('gives every operation a summary, a description and one tag the document defines', () => {
    const defined = new Set(document.tags.map((tag) => tag.name));
    for (const operation of operations) {
      expect(operation.summary, operation.name).toMatch(/^[A-Z][^.]*[^.\s]$/);
      expect(operation.description, operation.name).toMatch(/\S/);
      expect(operation.tags, operation.name).toHaveLength(1);
      expect(defined, operation.name).toContain(operation.tags![0]);
    }
    // Summaries name operations in the reference's menu: no two alike.
    const summaries = operations.map((operation) => operation.summary);
    expect(new Set(summaries).size).toBe(summaries.length);
  });

  it('describes every success answer in words, naming the model it carries', () => {
    const answers = operations.flatMap((operation) =>
      Object.entries(operation.responses)
        .filter(([status]) => Number(status) < 400)
        .map(([status, response]) => ({ at: `${operation.name} ${status}`, description: response.description })),
    );
    expect(answers.filter((answer) => !/^[A-Z].*\.$/.test(answer.description)).map((answer) => answer.at)).toEqual([]);
    const created = answers.find((answer) => answer.at === 'POST /v1/functions 201');
    expect(created?.description).toBe('Created: `Function`.');
  });

  it('describes every path parameter', () => {
    const parameters = operations.flatMap((operation) =>
      (operation.parameters ?? [])
        .filter((parameter) => parameter.in === 'path')
        .map((parameter) => ({ at: `${operation.name} ${parameter.name}`, description: parameter.description })),
    );
    expect(parameters.length).toBeGreaterThan(0);
    expect(parameters.filter((parameter) => !parameter.description).map((parameter) => parameter.at)).toEqual([]);
  });

  it('defines its tags with a description each, in the order a user meets them, each used', () => {
    expect(document.tags.map((tag) => tag.name)).toEqual([
      'Functions',
      'Executions',
      'Versions',
      'Storage',
      'Automations',
      'Secrets',
      'Signers',
      'Account',
      'Keys',
      'Console',
      'Audit',
      'Health',
      'Receipts',
      'OpenAPI',
      'Codec',
    ]);
    for (const tag of document.tags) expect(tag.description, tag.name).toMatch(/\S/);
    const used = new Set(operations.flatMap((operation) => operation.tags ?? []));
    expect([...used].sort()).toEqual(apiTags.map((tag) => tag.name).sort());
  });

  it('names its license and, offline, the address of an API run with its defaults', () => {
    expect(document.info.license).toEqual({ name: 'Apache-2.0', identifier: 'Apache-2.0' });
    expect(document.servers).toEqual([{ url: 'http://127.0.0.1:8080' }]);
  });

  it('offers API users the API key alone, in either header, as alternatives: the operator token is not a scheme', () => {
    expect(Object.keys(document.components.securitySchemes)).toEqual([
      'apiKey',
      'apiKeyHeader',
      'hookToken',
      'hookTokenHeader',
      'hookSignature',
    ]);
    expect(document.components.securitySchemes.apiKey).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(document.components.securitySchemes.apiKeyHeader).toMatchObject({
      type: 'apiKey',
      in: 'header',
      name: 'X-API-Key',
    });
    const invoke = document.paths['/v1/functions/{id}/invoke']!.post as { security?: unknown };
    expect(invoke.security).toEqual([{ apiKey: [] }, { apiKeyHeader: [] }]);
  });

  it("gives an inbound webhook its own credentials, a hook's token or signature, never an API key", () => {
    const hook = document.paths['/v1/hooks/{path}']!.post as { security?: unknown };
    expect(hook.security).toEqual([{ hookToken: [] }, { hookTokenHeader: [] }, { hookSignature: [] }]);
  });
});

interface Found {
  /** Where the example is, as a JSON pointer into the document. */
  at: string;
  /** Where its schema is. */
  schemaAt: string;
  value: unknown;
}

const pointer = (segments: (string | number)[]) =>
  segments.map((segment) => `/${String(segment).replaceAll('~', '~0').replaceAll('/', '~1')}`).join('');

/**
 * Every example of the document: a media type's or a parameter's named `examples` (and `example`)
 * beside their `schema`, and a schema's own `examples` list.
 */
function examplesOf(node: unknown, at: (string | number)[] = []): Found[] {
  if (Array.isArray(node)) return node.flatMap((item, index) => examplesOf(item, [...at, index]));
  if (node === null || typeof node !== 'object') return [];
  const object = node as Record<string, unknown>;
  const found: Found[] = [];
  if ('schema' in object) {
    const schemaAt = pointer([...at, 'schema']);
    if ('example' in object) found.push({ at: pointer([...at, 'example']), schemaAt, value: object.example });
    for (const [name, example] of Object.entries((object.examples ?? {}) as Record<string, { value: unknown }>))
      found.push({ at: pointer([...at, 'examples', name]), schemaAt, value: example.value });
  } else if (Array.isArray(object.examples)) {
    object.examples.forEach((value, index) =>
      found.push({ at: pointer([...at, 'examples', index]), schemaAt: pointer(at), value }),
    );
  }
  for (const [key, value] of Object.entries(object))
    if (key !== 'examples' && key !== 'example') found.push(...examplesOf(value, [...at, key]));
  return found;
}

describe('the examples of the OpenAPI document', () => {
  const examples = examplesOf(document);

  it('give every request body an example, beside its schema', () => {
    const bodies = operations.filter((operation) => operation.requestBody);
    const without = bodies.filter((operation) => !operation.requestBody!.content['application/json']!.examples);
    expect(bodies.length).toBeGreaterThanOrEqual(14);
    expect(without.map((operation) => operation.name)).toEqual([]);
  });

  it('each pass its own schema (JSON Schema 2020-12, formats checked)', () => {
    const ajv = new Ajv2020({ strict: false, validateSchema: false, allErrors: true });
    addFormats.default(ajv);
    ajv.addSchema(document, 'openapi.json');
    const refused = examples.flatMap(({ at, schemaAt, value }) => {
      const fragment = schemaAt.split('/').map(encodeURIComponent).join('/');
      const validate = ajv.compile({ $ref: `openapi.json#${fragment}` });
      return validate(value) ? [] : [`${at}: ${ajv.errorsText(validate.errors)}`];
    });
    expect(examples.length).toBeGreaterThan(0);
    expect(refused).toEqual([]);
  });
});

describe("the server named to a request, from the request's host", () => {
  it.each([
    ['http', 'api.example.com', 'http://api.example.com'],
    ['https', 'api.example.com:8443', 'https://api.example.com:8443'],
    ['http', '127.0.0.1:8080', 'http://127.0.0.1:8080'],
    ['http', '[::1]:8080', 'http://[::1]:8080'],
  ])('is %s://%s as asked', (protocol, host, url) => {
    expect(serverOf(protocol, host)).toEqual({ url });
  });

  it.each([
    'evil.example/path',
    'user@api.example.com',
    'api.example.com"}],"x":{"y":"',
    'api.example.com\r\nX-Injected: 1',
    'api.example.com:8080:9090',
    '',
    '-leading.example',
    'a'.repeat(300),
    'api.example.com?query',
    'api.example.com#fragment',
    '<script>',
  ])('falls back to the relative "/" for a hostile or malformed host %j', (host) => {
    expect(serverOf('http', host)).toEqual({ url: '/' });
  });

  it('falls back to "/" for a protocol other than http and https', () => {
    expect(serverOf('javascript', 'api.example.com')).toEqual({ url: '/' });
  });
});
