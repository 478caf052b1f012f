import type { Change, FieldChange, Plan } from './plan.ts';

const marks = { create: '+', update: '~', delete: '-' } as const;

/** A plan as `terraform plan` shows one: each change, field by field, then the counts. */
export function planText(plan: Plan): string {
  const lines = [`Plan for account ${plan.account.name} (${plan.account.id}):`, ''];
  for (const change of plan.changes) lines.push(...changeLines(change), '');
  const count = (op: Change['op']) => plan.changes.filter((change) => change.op === op).length;
  lines.push(
    plan.changes.length === 0
      ? 'No changes: the account holds what the file says.'
      : `Plan: ${count('create')} to create, ${count('update')} to update, ${count('delete')} to delete.`,
  );
  if (plan.leftAlone.length > 0) {
    const names = plan.leftAlone.map(({ kind, name }) => `${kind} ${name}`).join(', ');
    lines.push(`Left alone, not in the file (--prune deletes them): ${names}.`);
  }
  return `${lines.join('\n')}\n`;
}

function changeLines(change: Change): string[] {
  const id = change.id ? ` (${change.id})` : '';
  return [`  ${marks[change.op]} ${change.kind} ${change.name}${id}`, ...change.fields.map(fieldLine)];
}

function fieldLine({ path, before, after }: FieldChange): string {
  if (before === undefined) return `      + ${path} = ${after}`;
  if (after === undefined) return `      - ${path} = ${before}`;
  return `      ~ ${path}: ${before} → ${after}`;
}
