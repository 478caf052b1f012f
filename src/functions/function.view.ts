import type { EntityManager } from '@mikro-orm/postgresql';
import { z } from 'zod';
import { isoTime } from '../wire/response-schemas.ts';
import { languages } from './function.entity.ts';
import type { FunctionDef } from './function.entity.ts';
import { functionStats } from './stats.ts';

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

/**
 * One function as its routes answer it, with its execution stats read now. Create, update and
 * promote answer with the code; get-one only when include_code=true.
 */
export async function functionDetails(em: EntityManager, fn: FunctionDef, code = true) {
  const stats = await functionStats(em, fn.id);
  return {
    ...summary(fn),
    timeout: fn.timeout,
    environment: fn.environment,
    secrets: fn.secrets,
    allowedHosts: fn.allowedHosts,
    version: fn.version,
    ...(code ? { code: fn.code } : {}),
    stats,
  };
}

export function functionListItem(fn: FunctionDef, lastInvocation: string | undefined) {
  return { ...summary(fn), lastInvocation: lastInvocation ?? null };
}

const summarySchema = {
  id: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  runtime: z.enum(languages),
  status: z.literal('active'),
  createdAt: isoTime,
  updatedAt: isoTime,
  tags: z.array(z.string()),
};

const statsSchema = z
  .strictObject({
    invocations: z.strictObject({
      total: z.number().int(),
      success: z.number().int(),
      failed: z.number().int(),
      last24Hours: z.number().int(),
    }),
    averageExecutionTime: z.number(),
    lastInvocation: isoTime.nullable(),
  })
  .meta({ id: 'FunctionStats' });

/** A function as create, get and update answer it (its code unless a get leaves it out). */
export const functionSchema = z
  .strictObject({
    ...summarySchema,
    timeout: z.number().int(),
    environment: z.record(z.string(), z.string()),
    secrets: z.array(z.string()),
    allowedHosts: z.array(z.string()).describe('Hosts context.services.http.fetch may reach (docs/functions.md).'),
    /** The version it runs now (function_versions). */
    version: z.number().int(),
    code: z.string().optional(),
    stats: statsSchema,
  })
  .meta({ id: 'Function' });

export const functionListItemSchema = z
  .strictObject({ ...summarySchema, lastInvocation: isoTime.nullable() })
  .meta({ id: 'FunctionSummary' });
