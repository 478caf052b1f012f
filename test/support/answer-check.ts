import type { Router } from '@koa/router';
import type { Context, Middleware } from 'koa';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { openApiDocumentOf } from '../../src/api/openapi.routes.ts';
import { areaOf } from '../../src/api/areas.ts';
import { errorComponentOf } from '../../src/api/openapi-errors.ts';

type JsonSchema = Record<string, unknown>;
interface Response {
  headers?: Record<string, { required?: boolean; $ref?: string }>;
  content?: { 'application/json'?: { schema: JsonSchema }; 'application/x-ndjson'?: { schema: JsonSchema } };
}
interface Operation {
  responses: Record<string, Response>;
}
type Document = ReturnType<typeof openApiDocumentOf>;

/**
 * Every answer that drifted from the document in this process: the integration files' own
 * afterAll (test/setup/answer-drifts.ts) fails the file when it holds any, so a drift fails the
 * suite even where the test never looked at the answer.
 */
export const answerDrifts: string[] = [];

/**
 * Checks every answer against the OpenAPI document of these routers, as a client generated from
 * it would read it: the status is one the operation declares, the body validates against that
 * status's schema, the headers it declares required are there. Mounted outermost, so that the
 * answers of the error handler and of the middleware in front of the routes are checked too.
 * A drift is recorded and answered 500.
 */
export function answerCheck(routers: Router[]): Middleware {
  let checker: Checker | undefined;
  return async (ctx, next) => {
    await next();
    let drift: string | undefined;
    try {
      checker ??= new Checker(openApiDocumentOf(routers, { url: '/' }));
      drift = checker.drift(ctx);
    } catch (error) {
      drift = `The OpenAPI document could not check ${ctx.method} ${ctx.path}: ${String(error)}`;
    }
    if (!drift) return;
    answerDrifts.push(drift);
    throw new Error(drift);
  };
}

class Checker {
  readonly #ajv = new Ajv2020({ strict: false, allErrors: true });
  readonly #operations: { pattern: RegExp; params: number; method: string; operation: Operation }[] = [];
  readonly #validators = new Map<JsonSchema, ValidateFunction>();
  readonly #document: Document;

  constructor(document: Document) {
    this.#document = document;
    addFormats.default(this.#ajv);
    this.#ajv.addSchema({ $id: 'document', components: document.components });
    for (const [path, methods] of Object.entries(document.paths)) {
      const pattern = new RegExp(`^${path.replaceAll(/\{\w+\}/g, '[^/]+')}/?$`);
      const params = path.split('{').length - 1;
      for (const [method, operation] of Object.entries(methods))
        this.#operations.push({ pattern, params, method: method.toUpperCase(), operation: operation as Operation });
    }
    // A literal segment wins over a parameter, as the router matches.
    this.#operations.sort((a, b) => a.params - b.params);
  }

  /** What is wrong with this answer, or undefined when the document describes it. */
  drift(ctx: Context): string | undefined {
    const at = `${ctx.method} ${ctx.path} answered ${ctx.status}`;
    const found = this.#operations.find((one) => one.method === ctx.method && one.pattern.test(ctx.path));
    const response = found ? found.operation.responses[String(ctx.status)] : this.#unmatched(ctx);
    if (response === undefined) {
      if (!found && ctx.status < 400) return undefined; // not the API's: the docs page, the metrics
      return `${at}, a status the document does not declare for it (${JSON.stringify(ctx.body)})`;
    }
    for (const [name, header] of Object.entries(response.headers ?? {})) {
      if (this.#resolve(header).required && !ctx.response.get(name)) return `${at} without its header ${name}`;
    }
    // A stream (an export) is checked as declared, not line by line: its lines are read by the test.
    if (ctx.response.type === 'application/x-ndjson') {
      return response.content?.['application/x-ndjson'] ? undefined : `${at} as NDJSON, which it does not declare`;
    }
    const schema = response.content?.['application/json']?.schema;
    if (!schema) return undefined;
    const validate = this.#validator(schema);
    if (validate(ctx.body)) return undefined;
    return `${at} unlike the document: ${this.#ajv.errorsText(validate.errors)} in ${JSON.stringify(ctx.body)}`;
  }

  /** An answer no operation gives: a method the path does not take, a path none has, a key refused. */
  #unmatched(ctx: Context): Response | undefined {
    if (ctx.status === 405) return this.#document.components.responses.MethodNotAllowed;
    if (ctx.status < 400) return undefined;
    // A path no route has is answered in the general shape, whatever its area (src/api/error-handler.ts).
    const name = ctx.status === 404 ? 'FunctionsError' : errorComponentOf(areaOf(ctx.path));
    return {
      headers: { 'X-Request-Id': { required: true } },
      content: { 'application/json': { schema: { $ref: `#/components/schemas/${name}` } } },
    };
  }

  #resolve(header: { required?: boolean; $ref?: string }): { required?: boolean } {
    if (!header.$ref) return header;
    const name = header.$ref.split('/').pop()! as keyof Document['components']['headers'];
    return this.#document.components.headers[name];
  }

  #validator(schema: JsonSchema): ValidateFunction {
    let validate = this.#validators.get(schema);
    if (!validate) {
      const pointed = JSON.parse(
        JSON.stringify(schema).replaceAll('"#/components/', '"document#/components/'),
      ) as JsonSchema;
      validate = this.#ajv.compile(pointed);
      this.#validators.set(schema, validate);
    }
    return validate;
  }
}
