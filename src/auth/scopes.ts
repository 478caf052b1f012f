export const scopes = [
  'functions:read',
  'functions:write',
  'functions:invoke',
  'secrets:read',
  'secrets:write',
  'automations:read',
  'automations:write',
  'signers:read',
  'signers:write',
  'automations:operate',
  'approvals:write',
  'audit:read',
  'keys:admin',
  '*',
] as const;

export type Scope = (typeof scopes)[number];

function isScope(value: string): value is Scope {
  return (scopes as readonly string[]).includes(value);
}

/** A scope that a wider one grants too: whoever may change automations may fire, retry and pause them. */
const impliedBy: Partial<Record<Scope, Scope>> = { 'automations:operate': 'automations:write' };

export function grants(held: readonly string[], needed: Scope): boolean {
  const wider = impliedBy[needed];
  return held.includes('*') || held.includes(needed) || (wider !== undefined && held.includes(wider));
}

/** Parses `a,b,c`; throws naming the first unknown scope. */
export function parseScopes(csv: string): Scope[] {
  const parsed = csv
    .split(',')
    .map((scope) => scope.trim())
    .filter(Boolean);
  const unknown = parsed.find((scope) => !isScope(scope));
  if (unknown !== undefined || parsed.length === 0) {
    throw new Error(`unknown scope "${unknown ?? csv}"; scopes are ${scopes.join(', ')}`);
  }
  return [...new Set(parsed)] as Scope[];
}
