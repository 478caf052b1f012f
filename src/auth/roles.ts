import { grants, scopes, type Scope } from './scopes.ts';

/**
 * Roles: named sets of scopes a key is made with (`POST /v1/keys {role}`). A key stores its role
 * and the scopes the role gave it then, so a role changing later never widens an existing key.
 *
 * - owner: `*`, every scope, those added later too.
 * - admin: every scope declared today, keys included. It cannot make an owner key (it does not
 *   hold `*`), and no one can revoke the account's last owner key.
 * - developer: reads, and writes functions, automations and secrets; no keys, approvals or audit.
 * - operator: reads, and operates automations (fire, retry, replay, pause, resume).
 * - approver: reads, and approves or rejects runs waiting for approval.
 * - viewer: reads only.
 *
 * "Reads" are the `…:read` scopes but `audit:read`, which only owner and admin hold: who changed
 * what is for those who manage the account.
 */
export const roleNames = ['owner', 'admin', 'developer', 'operator', 'approver', 'viewer'] as const;

export type Role = (typeof roleNames)[number];

const reads: Scope[] = scopes.filter((scope) => scope.endsWith(':read') && scope !== 'audit:read');

export const roles: Record<Role, readonly Scope[]> = {
  owner: ['*'],
  admin: scopes.filter((scope) => scope !== '*'),
  developer: [
    ...reads,
    'functions:write',
    'functions:invoke',
    'automations:write',
    'automations:operate',
    'secrets:write',
  ],
  operator: [...reads, 'automations:operate'],
  approver: [...reads, 'approvals:write'],
  viewer: reads,
};

/** The scopes of `wanted` that a key holding `held` does not hold: what it cannot grant. */
export function scopesLacking(held: readonly string[], wanted: readonly Scope[]): Scope[] {
  return wanted.filter((scope) => (scope === '*' ? !held.includes('*') : !grants(held, scope)));
}

/** Whether a key holding these scopes may make, list and revoke keys. */
export const managesKeys = (held: readonly string[]) => grants(held, 'keys:admin');
