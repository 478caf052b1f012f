import type { FunctionDef } from './function.entity.ts';
import type { FunctionStats } from './stats.ts';

/** The fields every full view of a function shares (create, get-one, update). */
function common(fn: FunctionDef) {
  return {
    id: fn.id,
    name: fn.name,
    description: fn.description ?? null,
    runtime: fn.runtime,
    timeout: fn.timeout,
    status: fn.status,
    createdAt: fn.createdAt.toISOString(),
    updatedAt: fn.updatedAt.toISOString(),
    tags: fn.tags,
    environment: fn.environment,
    secrets: fn.secrets,
  };
}

/** Create and update answer with the code; get-one only when include_code=true. */
export function functionView(fn: FunctionDef, options: { code: boolean; stats?: FunctionStats }) {
  return {
    ...common(fn),
    ...(options.code ? { code: fn.code } : {}),
    ...(options.stats ? { stats: options.stats } : {}),
  };
}

export function functionListItem(fn: FunctionDef, lastInvocation: string | undefined) {
  return {
    id: fn.id,
    name: fn.name,
    description: fn.description ?? null,
    runtime: fn.runtime,
    status: fn.status,
    createdAt: fn.createdAt.toISOString(),
    updatedAt: fn.updatedAt.toISOString(),
    tags: fn.tags,
    lastInvocation: lastInvocation ?? null,
  };
}
