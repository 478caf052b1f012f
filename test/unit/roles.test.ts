import { describe, expect, it } from 'vitest';
import { managesKeys, roleNames, roles, scopesLacking } from '../../src/auth/roles.ts';
import { grants, scopes } from '../../src/auth/scopes.ts';

const readScopes = scopes.filter((scope) => scope.endsWith(':read') && scope !== 'audit:read');

describe('the role table', () => {
  it('gives owner every scope, later ones too, and admin every scope declared but *', () => {
    expect(roles.owner).toEqual(['*']);
    expect([...roles.admin].sort()).toEqual(scopes.filter((scope) => scope !== '*').sort());
    expect(scopesLacking(roles.owner, roles.admin)).toEqual([]);
    expect(scopesLacking(roles.admin, roles.owner)).toEqual(['*']);
  });

  it('lets only owner and admin manage keys or read the audit log', () => {
    for (const role of roleNames) {
      const manager = role === 'owner' || role === 'admin';
      expect(managesKeys(roles[role]), role).toBe(manager);
      expect(grants(roles[role], 'audit:read'), role).toBe(manager);
    }
  });

  it('gives viewer the reads only, and every role at least those', () => {
    expect([...roles.viewer].sort()).toEqual([...readScopes].sort());
    for (const role of roleNames) expect(scopesLacking(roles[role], readScopes), role).toEqual([]);
    for (const scope of roles.viewer) expect(scope.endsWith(':read')).toBe(true);
  });

  it('lets developer write functions, automations and secrets, but not approve or manage keys', () => {
    for (const scope of ['functions:write', 'functions:invoke', 'automations:write', 'secrets:write'] as const) {
      expect(grants(roles.developer, scope), scope).toBe(true);
    }
    expect(grants(roles.developer, 'approvals:write')).toBe(false);
    expect(grants(roles.developer, 'keys:admin')).toBe(false);
  });

  it('lets operator fire, retry, replay and pause but change nothing else; approver only approve', () => {
    expect(grants(roles.operator, 'automations:operate')).toBe(true);
    for (const scope of ['automations:write', 'functions:write', 'secrets:write', 'approvals:write'] as const) {
      expect(grants(roles.operator, scope), scope).toBe(false);
    }
    expect(scopesLacking(roles.viewer, roles.approver)).toEqual(['approvals:write']);
    expect(scopesLacking(roles.viewer, roles.operator)).toEqual(['automations:operate']);
  });

  it('grants automations:operate to an automations:write key, as keys made before operate existed', () => {
    expect(grants(['automations:write'], 'automations:operate')).toBe(true);
    expect(grants(['automations:operate'], 'automations:write')).toBe(false);
  });

  it('names each scope a key lacks to grant what is asked', () => {
    expect(scopesLacking(['automations:read'], ['automations:read', 'secrets:write', 'keys:admin'])).toEqual([
      'secrets:write',
      'keys:admin',
    ]);
    expect(scopesLacking(['keys:admin'], ['*'])).toEqual(['*']);
  });
});
