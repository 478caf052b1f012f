import { describe, expect, it } from 'vitest';
import { grants, parseScopes } from '../../src/auth/scopes.ts';

describe('scopes', () => {
  it('parses a comma list, trimming and removing repeats', () => {
    expect(parseScopes(' functions:read,secrets:write ,functions:read')).toEqual(['functions:read', 'secrets:write']);
  });

  it('names an unknown scope', () => {
    expect(() => parseScopes('functions:read,functions:delete')).toThrow(/unknown scope "functions:delete"/);
  });

  it('refuses an empty list', () => {
    expect(() => parseScopes(' , ')).toThrow(/unknown scope/);
  });

  it('grants what is held, and everything to *', () => {
    expect(grants(['functions:read'], 'functions:read')).toBe(true);
    expect(grants(['functions:read'], 'functions:write')).toBe(false);
    expect(grants(['*'], 'automations:write')).toBe(true);
  });
});
