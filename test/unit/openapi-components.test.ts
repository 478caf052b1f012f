import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { schemaComponents } from '../../src/api/openapi-components.ts';
import { offlineOpenApiDocument } from '../../src/app/openapi-document.ts';

type JsonSchema = Record<string, any>;
const document = offlineOpenApiDocument() as {
  paths: Record<string, Record<string, JsonSchema>>;
  components: { schemas: Record<string, JsonSchema> };
};
const named = document.components.schemas;

/** Every `$ref` anywhere in `value`. */
function refsIn(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(refsIn);
  if (value === null || typeof value !== 'object') return [];
  const node = value as JsonSchema;
  return [...(typeof node.$ref === 'string' ? [node.$ref] : []), ...Object.values(node).flatMap(refsIn)];
}

const answerOf = (path: string, method: string, status: string) =>
  document.paths[path]![method]!.responses[status].content['application/json'].schema as JsonSchema;
const queryParameter = (path: string, method: string, name: string) =>
  (document.paths[path]![method]!.parameters as JsonSchema[]).find((one) => one.in === 'query' && one.name === name)!;

describe('the named schemas of the OpenAPI document (components.schemas)', () => {
  it('names every resource, trigger, action and channel a user handles', () => {
    for (const name of [
      'Function',
      'FunctionSummary',
      'FunctionVersion',
      'FunctionCreate',
      'Execution',
      'ExecutionSummary',
      'ExecutionHandle',
      'Automation',
      'AutomationCreate',
      'AutomationRun',
      'AutomationRunDetails',
      'Secret',
      'SecretCreate',
      'Pagination',
      'Trigger',
      'ScheduleTrigger',
      'BlockchainTrigger',
      'TransactionTrigger',
      'PriceTrigger',
      'StateTrigger',
      'Action',
      'FunctionAction',
      'ContractAction',
      'WebhookAction',
      'Channel',
      'WebhookChannel',
      'TelegramChannel',
      'Replay',
      'Account',
      'FunctionPage',
      'ExecutionPage',
      'AutomationPage',
      'AutomationRunPage',
      'SecretPage',
    ])
      expect(named, name).toHaveProperty(name);
  });

  it('answers by reference to them, and every reference resolves', () => {
    expect(answerOf('/v1/automations', 'post', '201')).toEqual({ $ref: '#/components/schemas/Automation' });
    expect(answerOf('/v1/functions/{id}', 'get', '200').properties.data).toEqual({
      $ref: '#/components/schemas/Function',
    });
    expect(answerOf('/v1/functions/{id}/executions', 'get', '200')).toEqual({
      $ref: '#/components/schemas/ExecutionPage',
    });
    expect(named.ExecutionPage!.properties.data.items).toEqual({ $ref: '#/components/schemas/ExecutionSummary' });
    const refs = refsIn(document);
    expect(refs.length).toBeGreaterThan(50);
    for (const ref of refs) {
      const [kind, name] = ref.slice('#/components/'.length).split('/');
      expect(['schemas', 'headers'], ref).toContain(kind);
      expect((document.components as Record<string, object>)[kind!], ref).toHaveProperty(name!);
    }
  });

  it('names the request form of a schema apart when it differs from the answer: defaults are optional to send', () => {
    // A state trigger's `args` defaults to []: always answered, optional to send.
    expect(named.StateTrigger!.required).toContain('args');
    expect(named.StateTriggerInput!.required).not.toContain('args');
    const created = document.paths['/v1/automations']!.post!;
    expect(named.AutomationCreate!.properties.trigger).toEqual({ $ref: '#/components/schemas/TriggerInput' });
    expect(created.responses['201'].content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/Automation',
    });
    expect(named.Automation!.properties.trigger).toEqual({ $ref: '#/components/schemas/Trigger' });
  });

  it('refuses two schemas that claim one name with different shapes', () => {
    const components = schemaComponents();
    components.toJsonSchema(z.strictObject({ a: z.string() }).meta({ id: 'Twice' }), 'output');
    components.toJsonSchema(z.strictObject({ b: z.number() }).meta({ id: 'Twice' }), 'output');
    expect(() => components.schemas()).toThrow('Two schemas are named Twice with different shapes');
  });

  it('keeps one definition for one schema met in many operations', () => {
    const components = schemaComponents();
    const item = z.strictObject({ id: z.string() }).meta({ id: 'Item' });
    const one = components.toJsonSchema(z.strictObject({ item }), 'output');
    const many = components.toJsonSchema(z.array(item), 'output');
    expect(components.schemas()).toEqual({
      Item: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'], additionalProperties: false },
    });
    expect(one.properties).toEqual({ item: { $ref: '#/components/schemas/Item' } });
    expect(many.items).toEqual({ $ref: '#/components/schemas/Item' });
  });
});

describe('what the document says a request takes and an answer holds', () => {
  it('declares the fields every answer holds as required, null where they can be null', () => {
    expect(named.Function!.required).toContain('stats');
    expect(named.AutomationDetails!.required).toContain('executionStats');
    expect(answerOf('/v1/automations/{id}', 'get', '200')).toEqual({
      $ref: '#/components/schemas/AutomationDetails',
    });
    expect(named.ExecutionHandle!.required).toEqual(['id', 'status', 'startedAt']);
  });

  it('declares the end of an execution optional, not nullable: absent while it runs, as the interface says', () => {
    const { completedAt, duration } = named.ExecutionHandle!.properties;
    expect(JSON.stringify([completedAt, duration])).not.toContain('null');
    expect(named.Execution!.required).not.toContain('completedAt');
    expect(named.ExecutionSummary!.required).not.toContain('duration');
  });

  it('lets a route that takes no body be sent {} or nothing', () => {
    const trigger = document.paths['/v1/automations/{id}/trigger']!.post!;
    expect(trigger.requestBody.required).toBe(false);
    expect(trigger.requestBody.content['application/json'].schema).toEqual({
      type: 'object',
      properties: {},
      additionalProperties: false,
    });
  });

  it('leaves out a field no value satisfies: a secret keeps its name', () => {
    expect(named.SecretUpdate!.properties).not.toHaveProperty('name');
    expect(named.SecretUpdate!.additionalProperties).toBe(false);
  });

  it("types a contract call's args by their type: a value per type, arrays of arguments, templates in a contract action", () => {
    const variants = named.ContractArg!.oneOf as JsonSchema[];
    expect(variants.map((variant): unknown => variant.properties.type.const)).toEqual([
      'Hash160',
      'Integer',
      'String',
      'Boolean',
      'ByteArray',
      'Hash256',
      'PublicKey',
      'Array',
      'Any',
    ]);
    const array = variants.find((variant) => variant.properties.type.const === 'Array')!;
    expect(array.properties.value.items).toEqual({ $ref: '#/components/schemas/ContractArg' });
    expect(named.ContractAction!.properties.args.items).toEqual({ $ref: '#/components/schemas/TemplatedContractArg' });
    const integer = (named.TemplatedContractArg!.oneOf as JsonSchema[]).find(
      (variant) => variant.properties.type.const === 'Integer',
    )!;
    expect(integer.properties.value.anyOf[1].pattern).toBe('^\\{\\{.*\\}\\}$');
  });
});

describe('query parameters in the document', () => {
  it('types limit and offset as integers with their bounds, and flags as booleans', () => {
    expect(queryParameter('/v1/functions', 'get', 'limit').schema).toEqual({
      type: 'integer',
      minimum: 1,
      maximum: 100,
      default: 10,
    });
    expect(queryParameter('/v1/automations', 'get', 'offset').schema).toMatchObject({ type: 'integer', minimum: 0 });
    expect(queryParameter('/v1/functions/{id}', 'get', 'include_code').schema).toEqual({
      type: 'boolean',
      default: false,
    });
    expect(queryParameter('/v1/functions/{id}/storage/{key}', 'delete', 'ifVersion').schema).toMatchObject({
      type: 'integer',
    });
  });
});
