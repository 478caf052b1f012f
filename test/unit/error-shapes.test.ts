import { describe, expect, it } from 'vitest';
import { areaOf, errorBody } from '../../src/api/areas.ts';
import { AppError } from '../../src/errors.ts';

const error = new AppError('invalid_request', 'The name is too long.', { field: 'name' });

describe('error shapes per area', () => {
  it('uses the envelope and lower-case codes in the functions area', () => {
    expect(errorBody(areaOf('/v1/functions/func_1'), error)).toEqual({
      success: false,
      error: { code: 'invalid_request', message: 'The name is too long.', details: { field: 'name' } },
    });
  });

  it('uses a bare error and upper-case codes for secrets and automations', () => {
    for (const path of ['/v1/secrets', '/v1/automations/auto_1']) {
      expect(errorBody(areaOf(path), error)).toEqual({
        error: { code: 'INVALID_REQUEST', message: 'The name is too long.', details: { field: 'name' } },
      });
    }
  });

  it('speaks the functions shape everywhere else', () => {
    expect(areaOf('/v1/nothing-here')).toBe('general');
    expect(errorBody('general', new AppError('not_found', 'No such path.'))).toMatchObject({
      success: false,
      error: { code: 'not_found' },
    });
  });

  it('maps each code to its status once', () => {
    expect(new AppError('rate_limit_exceeded', 'Slow down.').status).toBe(429);
    expect(new AppError('payload_too_large', 'Too big.').status).toBe(413);
  });
});
