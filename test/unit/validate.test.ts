import { describe, expect, it } from 'vitest';
import { parseBody, parseQuery } from '../../src/api/validate.ts';
import type { AppError } from '../../src/errors.ts';
import { createSecretBody, listSecretsQuery, updateSecretBody } from '../../src/secrets/secrets.schemas.ts';

const failure = (attempt: () => unknown) => {
  try {
    attempt();
  } catch (error) {
    return error as AppError;
  }
  throw new Error('expected a validation error');
};

describe('request validation', () => {
  it('accepts a valid secret', () => {
    expect(parseBody(createSecretBody, { name: 'API_KEY', value: 'v' })).toEqual({ name: 'API_KEY', value: 'v' });
  });

  it('names the missing field', () => {
    const error = failure(() => parseBody(createSecretBody, { name: 'A' }));
    expect(error).toMatchObject({ code: 'invalid_request', details: { field: 'value' } });
    expect(error.message).toBe('"value" is required.');
  });

  it('rejects unknown fields, naming them (no mass assignment)', () => {
    const error = failure(() => parseBody(createSecretBody, { name: 'A', value: 'v', createdAt: 'x' }));
    expect(error).toMatchObject({ message: 'Unknown field "createdAt".', details: { field: 'createdAt' } });
  });

  it('rejects a body that is not an object', () => {
    expect(failure(() => parseBody(createSecretBody, [1, 2])).message).toMatch(/JSON object/);
  });

  it('enforces the secret name rule and value size', () => {
    expect(failure(() => parseBody(createSecretBody, { name: '1abc', value: 'v' })).details).toEqual({ field: 'name' });
    const big = 'x'.repeat(64 * 1024 + 1);
    expect(failure(() => parseBody(createSecretBody, { name: 'A', value: big })).details).toEqual({ field: 'value' });
    expect(parseBody(createSecretBody, { name: 'A', value: 'x'.repeat(64 * 1024) }).value).toHaveLength(65536);
  });

  it('refuses to rename a secret and an empty update', () => {
    expect(failure(() => parseBody(updateSecretBody, { name: 'B' })).details).toEqual({ field: 'name' });
    expect(failure(() => parseBody(updateSecretBody, {})).message).toBe(
      'The request body needs "value" or "description".',
    );
  });

  it('validates pagination without clamping', () => {
    expect(parseQuery(listSecretsQuery, {})).toEqual({ limit: 20, offset: 0 });
    expect(parseQuery(listSecretsQuery, { limit: '100', offset: '5' })).toEqual({ limit: 100, offset: 5 });
    const notIntegers = [{ limit: '' }, { limit: '0x10' }, { limit: '1e1' }, { offset: ' 3' }, { limit: ['1', '2'] }];
    for (const query of [
      { limit: '0' },
      { limit: '101' },
      { limit: '1.5' },
      { limit: 'ten' },
      { offset: '-1' },
      ...notIntegers,
    ]) {
      expect(failure(() => parseQuery(listSecretsQuery, query)).code).toBe('invalid_request');
    }
  });
});
