/**
 * Every action the audit log records (docs/api.md, "Audit log"): `<resource>.<verb>`. A name not
 * listed here is refused by the writer, so the documented vocabulary is the whole of it.
 */
export const auditActions = [
  'function.create',
  'function.update',
  'function.delete',
  'function.promote',
  'function.invoke',
  'execution.retry',
  'secret.create',
  'secret.update',
  'secret.delete',
  'automation.create',
  'automation.update',
  'automation.delete',
  'automation.fire',
  'run.retry',
  'replay.create',
  'run.approve',
  'run.reject',
  'transaction.sign',
  'signer.create',
  'signer.delete',
  'key.create',
  'key.revoke',
  'account.update',
  'auth.refused',
  'codec.decode',
] as const;

export type AuditAction = (typeof auditActions)[number];

export const resourceTypes = [
  'function',
  'execution',
  'secret',
  'automation',
  'run',
  'replay',
  'transaction',
  'signer',
  'key',
  'account',
  'codec',
] as const;

export type ResourceType = (typeof resourceTypes)[number];
