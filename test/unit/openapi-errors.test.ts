import { describe, expect, it } from 'vitest';
import { offlineOpenApiDocument } from '../../src/app/openapi-document.ts';

type Response = {
  description: string;
  headers: Record<string, { $ref?: string; required?: boolean }>;
  content: {
    'application/json': {
      schema: { allOf: [{ $ref: string }, { properties: { error: { properties: { code: { enum: string[] } } } } }] };
    };
  };
};
const document = offlineOpenApiDocument() as {
  paths: Record<string, Record<string, { responses: Record<string, Response> }>>;
  components: { schemas: Record<string, Record<string, unknown>> };
};
const responses = (path: string, method: string) => document.paths[path]![method]!.responses;
const codes = (path: string, method: string, status: string) =>
  responses(path, method)[status]!.content['application/json'].schema.allOf[1].properties.error.properties.code.enum;

describe('error statuses declared from the route kit', () => {
  it('declares what a route says its handler answers: a function not found on POST /v1/automations', () => {
    expect(codes('/v1/automations', 'post', '404')).toEqual(['CONTRACT_NOT_FOUND', 'FUNCTION_NOT_FOUND']);
    expect(codes('/v1/automations', 'post', '409')).toEqual(['AUTOMATION_LIMIT_REACHED', 'CONFLICT']);
  });

  it('adds what the declaration implies: 413 on every route (a body is bounded before routing), 401/403/429 with a scope, 409 with idempotency', () => {
    expect(codes('/v1/functions', 'post', '413')).toEqual(['payload_too_large']);
    expect(codes('/v1/functions', 'post', '401')).toEqual(['unauthorized']);
    expect(codes('/v1/functions', 'post', '403')).toEqual(['forbidden']);
    expect(codes('/v1/functions', 'post', '429')).toEqual(['rate_limit_exceeded']);
    expect(Object.keys(responses('/v1/functions', 'get'))).toEqual([
      '200',
      '400',
      '401',
      '403',
      '413',
      '429',
      '500',
      '503',
    ]);
    expect(Object.keys(responses('/v1/livez', 'get'))).toEqual(['200', '400', '413', '500', '503']);
  });

  it("declares the codec's 401 and 403, answered by its operator guard and its origin check", () => {
    const path = Object.keys(document.paths).find((one) => one.startsWith('/v1/codec/'))!;
    expect(codes(path, 'post', '401')).toEqual(['unauthorized']);
    expect(codes(path, 'post', '403')).toEqual(['forbidden']);
  });

  it('names the error shapes per area, with every code as an enum, and narrows the codes per operation', () => {
    const functionsError = document.components.schemas.FunctionsError as {
      properties: { error: { properties: { code: { enum: string[] } } } };
    };
    expect(functionsError.properties.error.properties.code.enum).toContain('function_not_found');
    expect(document.components.schemas).toHaveProperty('AutomationsError');
    expect(document.components.schemas).toHaveProperty('ErrorDetails');
    expect(responses('/v1/functions/{id}', 'get')['404']!.content['application/json'].schema.allOf[0]).toEqual({
      $ref: '#/components/schemas/FunctionsError',
    });
    expect(codes('/v1/functions/{id}', 'get', '404')).toEqual(['function_not_found']);
  });

  it('declares the headers answered: X-Request-Id always, RateLimit-* once a key is admitted, Retry-After on 429 and 503, Idempotent-Replayed', () => {
    const created = responses('/v1/functions', 'post');
    expect(Object.keys(created['201']!.headers)).toEqual([
      'X-Request-Id',
      'RateLimit-Limit',
      'RateLimit-Remaining',
      'RateLimit-Reset',
      'Idempotent-Replayed',
    ]);
    expect(Object.keys(created['401']!.headers)).toEqual(['X-Request-Id', 'Idempotent-Replayed']);
    expect(created['429']!.headers).toHaveProperty('Retry-After');
    expect(created['503']!.headers).toHaveProperty('Retry-After');
    expect(created['503']!.headers['RateLimit-Limit']!.required).toBe(false);
    expect(Object.keys(responses('/v1/livez', 'get')['200']!.headers)).toEqual(['X-Request-Id']);
  });
});
