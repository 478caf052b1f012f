import type { FunctionDef } from './function.entity.ts';
import type { FunctionStats } from './stats.ts';

/** The fields every view of a function shows, the list's items included. */
function summary(fn: FunctionDef) {
  return {
    id: fn.id,
    name: fn.name,
    description: fn.description ?? null,
    runtime: fn.runtime,
    status: fn.status,
    createdAt: fn.createdAt.toISOString(),
    updatedAt: fn.updatedAt.toISOString(),
    tags: fn.tags,
  };
}

/** Create and update answer with the code; get-one only when include_code=true. */
export function functionView(fn: FunctionDef, options: { code: boolean; stats?: FunctionStats }) {
  return {
    ...summary(fn),
    timeout: fn.timeout,
    environment: fn.environment,
    secrets: fn.secrets,
    ...(options.code ? { code: fn.code } : {}),
    ...(options.stats ? { stats: options.stats } : {}),
  };
}

export function functionListItem(fn: FunctionDef, lastInvocation: string | undefined) {
  return { ...summary(fn), lastInvocation: lastInvocation ?? null };
}
