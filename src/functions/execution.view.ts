import { z } from 'zod';
import { isoTime } from '../wire/response-schemas.ts';
import type { Execution } from './execution.entity.ts';
import type { ReadReceipt } from './execution.sql.ts';
import { receiptSchema, receiptView } from '../receipts/receipt.view.ts';
import { executionStatus, executionStatuses } from '../shared/outcomes.ts';

/**
 * What invoke answers: the handle, plus the end of the run once it ended. While it runs,
 * `completedAt` and `duration` are absent, not null (the interface: "absent while running").
 */
export function executionHandle(execution: Execution) {
  return {
    id: execution.id,
    status: execution.status,
    startedAt: execution.startedAt.toISOString(),
    ...(execution.completedAt ? { completedAt: execution.completedAt.toISOString() } : {}),
    ...(execution.duration === null || execution.duration === undefined ? {} : { duration: execution.duration }),
  };
}

export function executionListItem(execution: Execution) {
  return {
    ...executionHandle(execution),
    params: execution.params,
    functionVersion: execution.functionVersion ?? null,
    hasResult: execution.status === executionStatus.completed,
    hasError: execution.error !== null && execution.error !== undefined,
  };
}

/** `receipt`: its signed receipt, once it ended with one (src/receipts/). */
export function executionDetails(execution: Execution, result: unknown, receipt?: ReadReceipt) {
  return {
    ...executionHandle(execution),
    functionId: execution.function.id,
    functionVersion: execution.functionVersion ?? null,
    params: execution.params,
    ...(execution.status === executionStatus.completed ? { result } : {}),
    ...(execution.error ? { error: execution.error } : {}),
    logs: execution.logs,
    secretsRead: execution.secretsRead.map((read) => read.name),
    httpRequests: execution.httpRequests,
    ...(execution.storageKeys ? { storage: execution.storageKeys } : {}),
    trigger: execution.trigger,
    ...(receipt ? { receipt: receiptView(execution.id, receipt) } : {}),
  };
}

export const executionHandleSchema = z
  .strictObject({
    id: z.string(),
    status: z.enum(executionStatuses),
    startedAt: isoTime,
    completedAt: isoTime.optional().describe('When the execution ended; absent while it runs.'),
    duration: z.number().int().optional().describe('Milliseconds it ran; absent while it runs.'),
  })
  .meta({ id: 'ExecutionHandle' });

export const executionListItemSchema = executionHandleSchema
  .extend({
    params: z.record(z.string(), z.unknown()),
    /** The function's version it ran; null for executions recorded before versions were kept. */
    functionVersion: z.number().int().nullable(),
    hasResult: z.boolean(),
    hasError: z.boolean(),
  })
  .meta({ id: 'ExecutionSummary' });

const logLineSchema = z
  .strictObject({
    level: z.enum(['debug', 'info', 'warn', 'error']),
    message: z.string(),
    timestamp: isoTime,
  })
  .meta({ id: 'LogLine' });

export const executionDetailsSchema = executionHandleSchema
  .extend({
    functionId: z.string(),
    functionVersion: z.number().int().nullable(),
    params: z.record(z.string(), z.unknown()),
    result: z.unknown().optional(),
    error: z.strictObject({ name: z.string(), message: z.string(), stack: z.string() }).optional(),
    logs: z.array(logLineSchema),
    secretsRead: z.array(z.string()),
    httpRequests: z
      .array(
        z.strictObject({
          method: z.string(),
          host: z.string(),
          status: z.number().int().nullable(),
          bytes: z.number().int(),
          durationMs: z.number().int(),
          error: z.string().optional(),
        }),
      )
      .describe(
        "The run's requests through context.services.http.fetch, in order: never their path, query, headers or bodies.",
      ),
    /** The storage keys the run read and wrote; what it wrote was applied only if it completed. */
    storage: z.strictObject({ read: z.array(z.string()), written: z.array(z.string()) }).optional(),
    trigger: z.discriminatedUnion('type', [
      z.strictObject({ type: z.literal('api') }),
      z.strictObject({ type: z.literal('retry'), retryOf: z.string() }),
      z.strictObject({ type: z.literal('automation'), automationId: z.string() }),
    ]),
    receipt: receiptSchema
      .optional()
      .describe('Its signed receipt, once it ended; absent while it runs and for executions ended without one.'),
  })
  .meta({ id: 'Execution' });
