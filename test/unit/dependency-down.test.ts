import { describe, expect, it } from 'vitest';
import { isDependencyDown } from '../../src/api/dependency-down.ts';

const withCode = (code: unknown, message = 'x') => Object.assign(new Error(message), { code });
const grpc = (code: number) => Object.assign(new Error('grpc'), { code, details: 'd', metadata: {} });

describe('isDependencyDown tells an unreachable PostgreSQL or Temporal from other failures', () => {
  it.each([
    ['a refused connection', withCode('ECONNREFUSED')],
    ['a refused connection inside an AggregateError', new AggregateError([withCode('ECONNREFUSED')])],
    ['a reset connection as the cause of a wrapper', new Error('query failed', { cause: withCode('ECONNRESET') })],
    ['PostgreSQL shutting down (57P01)', withCode('57P01')],
    ['PostgreSQL starting up (57P03)', withCode('57P03')],
    ['a connection exception (08006)', withCode('08006')],
    ['too many connections (53300)', withCode('53300')],
    ['a connection node-postgres saw end', new Error('Connection terminated unexpectedly')],
    ["the pool's connect timeout", new Error('timeout exceeded when trying to connect')],
    ['gRPC UNAVAILABLE', grpc(14)],
    ['gRPC UNAVAILABLE as the cause of a Temporal ServiceError', new Error('start failed', { cause: grpc(14) })],
    ['gRPC DEADLINE_EXCEEDED', grpc(4)],
  ])('down: %s', (_, error) => expect(isDependencyDown(error)).toBe(true));

  it.each([
    ['a unique violation', withCode('23505')],
    ['an invalid text value', withCode('22P02')],
    ['gRPC NOT_FOUND', grpc(5)],
    ['a number code without gRPC metadata', withCode(14)],
    ['a plain error', new Error('something else')],
    ['a string', 'ECONNREFUSED'],
    ['null', null],
  ])('not down: %s', (_, error) => expect(isDependencyDown(error)).toBe(false));

  it('stops at a cycle of causes', () => {
    const error = new Error('loop') as Error & { cause?: unknown };
    error.cause = error;
    expect(isDependencyDown(error)).toBe(false);
  });
});
