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
  '*',
] as const;

export type Scope = (typeof scopes)[number];

function isScope(value: string): value is Scope {
  return (scopes as readonly string[]).includes(value);
}

export function grants(held: readonly string[], needed: Scope): boolean {
  return held.includes('*') || held.includes(needed);
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
