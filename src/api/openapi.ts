import type { Router } from '@koa/router';
import { isProtected } from './auth.ts';
import { declaredRoutes, type DeclaredRoute } from './route-kit.ts';
import { apiInfo, apiTags, pathParameterDescription } from './openapi-info.ts';
import { schemaComponents, type SchemaComponents } from './openapi-components.ts';
import { requestExamples, withSchemaExamples } from './openapi-examples.ts';
import {
  eitherAnswer,
  errorComponents,
  errorResponses,
  headerComponents,
  methodNotAllowed,
  responseHeaders,
  type Answered,
} from './openapi-errors.ts';

type JsonSchema = Record<string, unknown>;

/**
 * The OpenAPI 3.1 document of the API, built from the routes' own declarations (the route kit):
 * the schemas that validate each request and describe each answer are the document's, so the two
 * cannot disagree. Errors come in the area's shape; operations of the protected areas take an API
 * key; creates and invokes take an `Idempotency-Key`.
 */
export function openApiDocument(routers: Router[], version: string, server: { url: string }) {
  const paths: Record<string, Record<string, unknown>> = {};
  const named = schemaComponents();
  for (const declared of routers.flatMap((router) => declaredRoutes(router))) {
    const { path, method } = declared;
    (paths[openApiPath(path)] ??= {})[method] = operation(declared, named);
  }
  return {
    openapi: '3.1.0',
    info: apiInfo(version),
    servers: [server],
    tags: apiTags,
    components: {
      schemas: { ...withSchemaExamples(named.schemas()), ...errorComponents() },
      headers: headerComponents,
      responses: { MethodNotAllowed: methodNotAllowed },
      securitySchemes: {
        // The API key, in either header the API takes (alternatives: security()); the operator's
        // token is for the codec's routes, whose descriptions say how to send it.
        apiKey: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'nf_…',
          description: 'An API key (`neoflow keys create`): `Authorization: Bearer nf_…`, or `X-API-Key: nf_…`.',
        },
        apiKeyHeader: {
          type: 'apiKey',
          in: 'header',
          name: 'X-API-Key',
          description: 'The same API key in its own header: `X-API-Key: nf_…`.',
        },
        // An inbound webhook's own credentials, never an API key (docs/api.md, "Inbound webhooks").
        hookToken: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'nfh_…',
          description: "A webhook automation's token: `Authorization: Bearer nfh_…`.",
        },
        hookTokenHeader: {
          type: 'apiKey',
          in: 'header',
          name: 'X-Neoflow-Token',
          description: 'The same token in its own header.',
        },
        hookSignature: {
          type: 'apiKey',
          in: 'header',
          name: 'X-Signature',
          description:
            'For HMAC auth: the hex HMAC of the raw body (of `<timestamp>.<body>` with a timestamp header) with the named secret, in the header the trigger names (X-Signature by default).',
        },
      },
    },
    paths,
  };
}

/** `/v1/functions/:id/invoke` → `/v1/functions/{id}/invoke`; no trailing slash. */
export function openApiPath(path: string): string {
  const trimmed = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
  return trimmed.replaceAll(/:(\w+)/g, '{$1}');
}

function operation(declared: DeclaredRoute, { toJsonSchema }: SchemaComponents) {
  const { path, method, spec } = declared;
  const pathParams = [...path.matchAll(/:(\w+)/g)].map(([, name]) => ({
    name,
    in: 'path',
    required: true,
    description: pathParameterDescription(path, name!),
    schema: { type: 'string' },
  }));
  const queryParams = spec.query ? queryParameters(toJsonSchema(spec.query, 'input')) : [];
  const idempotencyKey = spec.idempotency
    ? [
        {
          name: 'Idempotency-Key',
          in: 'header',
          required: false,
          description: 'Makes the request safe to repeat for 24 hours (docs/api.md).',
          schema: { type: 'string', minLength: 1, maxLength: 255 },
        },
      ]
    : [];
  const responses: Record<string, unknown> = {};
  for (const [status, schema] of Object.entries(spec.responses)) {
    const answered = toJsonSchema(schema!, 'output');
    responses[status] = {
      description: successDescription(Number(status), answered),
      headers: responseHeaders(declared, Number(status), 'own'),
      content: {
        ...json(answered),
        ...(spec.streams && Number(status) === 200 && { [ndjson]: { schema: toJsonSchema(spec.streams, 'output') } }),
      },
    };
  }
  for (const [status, error] of Object.entries(errorResponses(declared)))
    responses[status] = responses[status] ? eitherAnswer(responses[status] as Answered, error as Answered) : error;
  return {
    operationId: operationId(method, path),
    summary: spec.summary,
    description: spec.description,
    tags: [spec.tag],
    ...security(path),
    parameters: [...pathParams, ...queryParams, ...idempotencyKey],
    ...(spec.body
      ? {
          requestBody: {
            required: !spec.bodyOptional,
            content: json(
              toJsonSchema(spec.body, 'input'),
              requestExamples[`${method.toUpperCase()} ${openApiPath(path)}`],
            ),
          },
        }
      : {}),
    responses,
  };
}

/**
 * The API key on the protected areas, as a bearer token or in `X-API-Key`: two requirements, either
 * of which is met (a validating proxy built from this document passes both); nothing an API user
 * holds elsewhere. The codec's routes take the operator's token (or a capability in the path): not
 * a scheme of this document, so that the reference offers API users their key alone; the Codec tag
 * and each route's description say it.
 */
const security = (path: string) => ({
  security: isProtected(path)
    ? [{ apiKey: [] }, { apiKeyHeader: [] }]
    : path.startsWith('/v1/hooks/')
      ? [{ hookToken: [] }, { hookTokenHeader: [] }, { hookSignature: [] }]
      : [],
});

function queryParameters(schema: JsonSchema) {
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((schema.required ?? []) as string[]);
  return Object.entries(properties).map(([name, property]) => ({
    name,
    in: 'query',
    required: required.has(name),
    schema: property,
  }));
}

/** A stream of JSON values, one a line: what a route's `streams` answers under `Accept` (its schema is one line's). */
export const ndjson = 'application/x-ndjson';

const json = (schema: JsonSchema, examples?: object) => ({
  'application/json': { schema, ...(examples && { examples }) },
});

function operationId(method: string, path: string): string {
  const words = path
    .replace(/^\/v1\//, '')
    .split(/[/-]/)
    .filter(Boolean)
    .map((word) => (word.startsWith(':') ? `by ${word.slice(1)}` : word))
    .flatMap((word) => word.split(' '));
  return [method, ...words]
    .map((word, index) => (index === 0 ? word : word[0]!.toUpperCase() + word.slice(1)))
    .join('');
}

const successMeaning: Record<number, string> = {
  200: 'Done',
  201: 'Created',
  202: 'Accepted (the work goes on after the answer)',
  204: 'Allowed: no content',
};

/** What a success answer says, naming the model it carries, bare or as the envelope's `data`. */
function successDescription(status: number, answered: JsonSchema): string {
  const meaning = successMeaning[status] ?? 'Done';
  const data = (answered.properties as Record<string, JsonSchema> | undefined)?.data;
  const model = modelName(answered) ?? (data && (modelName(data) ?? listOf(data)));
  return model ? `${meaning}: ${model}.` : `${meaning}.`;
}

const modelName = (schema: JsonSchema): string | undefined =>
  typeof schema.$ref === 'string' ? `\`${schema.$ref.split('/').pop()}\`` : undefined;

function listOf(schema: JsonSchema): string | undefined {
  const item = schema.items as JsonSchema | undefined;
  const name = item && modelName(item);
  return name && `a list of ${name}`;
}
