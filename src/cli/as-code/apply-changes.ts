import { describeAnswer, type Api } from '../api-client.ts';
import type { Change, Plan, ResourceKind } from './plan.ts';

const paths: Record<ResourceKind, string> = {
  secret: '/v1/secrets',
  signer: '/v1/signers',
  function: '/v1/functions',
  automation: '/v1/automations',
};

// A signer is never updated (apply leaves one that exists): it has no update.
const updateMethods: Record<ResourceKind, string> = {
  secret: 'PUT',
  signer: 'PUT',
  function: 'PUT',
  automation: 'PATCH',
};

/**
 * Applies a plan's changes through the API, in its order, reporting each on `out` as it is done.
 * Stops at the first the API refuses: what was done stays done, and applying the file again
 * plans only what is left.
 */
export async function applyPlan(api: Api, plan: Plan, functionIds: Map<string, string>, out: (line: string) => void) {
  for (const change of plan.changes) {
    const answer = await send(api, change, functionIds);
    const expected = change.op === 'create' ? 201 : 200;
    if (answer.status !== expected)
      throw new Error(`${change.op} ${change.kind} ${change.name}: ${describeAnswer(answer)}`);
    const id = change.id ?? idOf(answer.body);
    if (change.kind === 'function' && change.op === 'create' && id) functionIds.set(change.name, id);
    out(
      `${change.op === 'create' ? 'created' : change.op === 'update' ? 'updated' : 'deleted'} ${change.kind} ${change.name} (${id})`,
    );
  }
}

function send(api: Api, change: Change, functionIds: Map<string, string>) {
  const base = paths[change.kind];
  if (change.op === 'delete') return api('DELETE', `${base}/${change.id}`);
  const body = change.kind === 'automation' ? withFunctionId(change.body!, functionIds) : change.body;
  return change.op === 'create'
    ? api('POST', base, body)
    : api(updateMethods[change.kind], `${base}/${change.id}`, body);
}

/** A function action's `function` (a name) as the `functionId` the API takes. */
function withFunctionId(body: Record<string, unknown>, functionIds: Map<string, string>) {
  const action = body.action as { type: string; function?: string } | undefined;
  if (action?.type !== 'function' || action.function === undefined) return body;
  const { function: name, ...rest } = action;
  const functionId = functionIds.get(name);
  if (!functionId) throw new Error(`no function named ${name} to run`);
  return { ...body, action: { ...rest, functionId } };
}

function idOf(body: Record<string, unknown>): string | undefined {
  const data = (body.data ?? body) as { id?: unknown };
  return typeof data.id === 'string' ? data.id : undefined;
}
