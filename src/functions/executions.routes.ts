import { ownedFunction } from './function.sql.ts';
import type { Router } from '@koa/router';
import { emptyBody } from '../wire/empty-body.ts';
import { z } from 'zod';
import { readWithKey, type ReadWithKey } from '../api/auth.ts';
import { dataEnvelope, dataPageEnvelope } from '../wire/response-schemas.ts';
import { type Answer, areaRouter, data, dataPage, route } from '../api/route-kit.ts';
import { AppError } from '../errors.ts';
import type { Execution } from './execution.entity.ts';
import {
  executionDetails,
  executionDetailsSchema,
  executionHandle,
  executionHandleSchema,
  executionListItem,
  executionListItemSchema,
} from './execution.view.ts';
import { invokeBody, listExecutionsQuery, retryQuery } from './executions.schemas.ts';
import {
  getExecution,
  invokeAndWait,
  invokerOf,
  type InvokerResources,
  listExecutions,
  startExecution,
  type Invoked,
} from './executions.service.ts';
import { functionRead, getFunction } from './functions.service.ts';
import { assertQueueRoom } from './queued-executions.ts';
import { openResult } from './result-seal.ts';
import { idempotent } from '../api/idempotency.ts';
import { executionStatus } from '../shared/outcomes.ts';
import { readReceipt } from './execution.sql.ts';
import { receiptSchema, receiptView } from '../receipts/receipt.view.ts';
import { endedReceipt } from './receipt-read.ts';

/** How long a synchronous invoke waits beyond the function's own timeout before answering 202. */
const syncGraceMs = 15_000;

/** 202: the run goes on (asynchronous, retried, or longer than the wait). */
const acceptedSchema = dataEnvelope(z.strictObject({ execution: executionHandleSchema }));
/** 200: the run ended with its result (a failed run answers 500 execution_error). */
const invokedSchema = dataEnvelope(z.strictObject({ execution: executionHandleSchema, result: z.unknown() }));

/**
 * An invoke reads its function with its key, in the admission's statement: the first step of the
 * busiest path, one round trip less before its workflow starts. Only well-formed ids are matched;
 * any other path is admitted alone and its function read as usual.
 */
export const invokeReadsFunction: ReadWithKey = {
  method: 'POST',
  path: /^\/v1\/functions\/(func_[A-Za-z0-9_-]{24})\/invoke$/,
  table: 'functions',
};

/** Invocations and their history, in the functions area's envelope. */
export function executionsRoutes(resources: InvokerResources): Router {
  // Creates and invokes are safe to repeat under an Idempotency-Key.
  const keyed = idempotent(resources);
  const { em } = resources;
  const invoker = invokerOf(resources);
  const queuedLimit = resources.config.quotas.queuedExecutionsPerAccount;
  const executionOf = async (accountId: string, params: { id: string; executionId: string }) => {
    const fn = await getFunction(em(), accountId, params.id);
    return { fn, execution: await getExecution(em(), fn, params.executionId) };
  };
  return areaRouter('/v1/functions', [
    route({
      method: 'post',
      path: '/:id/invoke',
      errors: ['function_not_found', 'execution_queue_full', 'execution_error'],
      summary: 'Invoke a function',
      description:
        "Runs the function with `params`. Synchronous by default: 200 with its `result`, 500 `execution_error` when the run fails, or 202 with the execution when the run outlives the function's timeout plus 15 s. With `async: true` it answers 202 at once: poll the execution. Under an `Idempotency-Key` a repeated call runs the code once.",
      tag: 'Executions',
      scope: 'functions:invoke',
      idempotency: keyed,
      body: invokeBody,
      bodyOptional: true,
      responses: { 200: invokedSchema, 202: acceptedSchema },
      handle: async ({ accountId, actor, params, body, ctx }) => {
        const read = readWithKey(ctx.state, 'functions', params.id);
        const fn = read === undefined ? await getFunction(em(), accountId, params.id) : functionRead(em(), read);
        await assertQueueRoom(em(), accountId, queuedLimit);
        if (body.async) return accepted(await startExecution(em(), invoker, actor, fn, body.params, { type: 'api' }));
        const waitMs = fn.timeout * 1000 + syncGraceMs;
        return answerSync(await invokeAndWait(em(), invoker, actor, resources.masterKeys, fn, body.params, waitMs));
      },
    }),
    route({
      method: 'get',
      path: '/:id/executions',
      errors: ['function_not_found'],
      summary: 'List executions',
      description:
        "Returns the function's executions, newest first, filtered by `status` and by start time (`start_date`, `end_date`); items carry no result or logs.",
      tag: 'Executions',
      scope: 'functions:read',
      query: listExecutionsQuery,
      responses: { 200: dataPageEnvelope(executionListItemSchema, 'ExecutionPage') },
      handle: async ({ accountId, params, query }) => {
        const fn = await getFunction(em(), accountId, params.id);
        const [executions, total] = await listExecutions(em(), fn, query);
        return dataPage(executions.map(executionListItem), query, total);
      },
    }),
    route({
      method: 'get',
      path: '/:id/executions/:executionId',
      errors: ['function_not_found', 'execution_not_found'],
      summary: 'Retrieve an execution',
      description:
        'Returns an execution with its result, logs and error, the version it ran, the granted secrets it read, its HTTP requests (host and status, never a path or body) and the storage keys it read and wrote.',
      tag: 'Executions',
      scope: 'functions:read',
      responses: { 200: dataEnvelope(executionDetailsSchema) },
      handle: async ({ accountId, params }) => {
        const { execution } = await executionOf(accountId, params);
        const [result, receipt] = await Promise.all([
          openResult(em(), resources.masterKeys, execution),
          readReceipt(em(), execution.id),
        ]);
        return data(executionDetails(execution, result, receipt));
      },
    }),
    route({
      method: 'get',
      path: '/:id/executions/:executionId/receipt',
      errors: ['function_not_found', 'execution_not_found', 'receipt_unavailable'],
      summary: "Retrieve an execution's receipt",
      description:
        'Returns the execution\'s signed receipt: its preimage\'s fields, the preimage and the signature (ECDSA secp256r1 over SHA-256, r‖s), which anyone checks against the keys of GET /v1/receipt-keys and a Neo contract with CryptoLib.verifyWithECDsa. 409 `receipt_unavailable` while it runs, and for executions ended before receipts or without a receipt key. docs/security.md, "Receipts".',
      tag: 'Executions',
      scope: 'functions:read',
      responses: { 200: dataEnvelope(receiptSchema) },
      handle: async ({ accountId, params }) => {
        const { execution } = await executionOf(accountId, params);
        return data(receiptView(execution.id, await endedReceipt(em(), execution.id)));
      },
    }),
    route({
      method: 'post',
      path: '/:id/executions/:executionId/retry',
      errors: ['function_not_found', 'execution_not_found', 'version_not_found', 'conflict', 'execution_queue_full'],
      summary: 'Retry a failed execution',
      description:
        "Starts a new execution with the failed one's params and answers 202 with it. It runs the version the failed one ran; `version=latest` runs the current one. Only a `failed` execution can be retried (409 `conflict` otherwise).",
      tag: 'Executions',
      scope: 'functions:invoke',
      idempotency: keyed,
      query: retryQuery,
      body: emptyBody,
      bodyOptional: true,
      responses: { 202: acceptedSchema },
      handle: async ({ accountId, actor, params, query }) => {
        const { fn, execution: previous } = await executionOf(accountId, params);
        if (previous.status !== executionStatus.failed) {
          throw new AppError('conflict', `Only failed executions can be retried; this one is ${previous.status}.`);
        }
        await assertQueueRoom(em(), accountId, queuedLimit);
        const retryOf = { type: 'retry' as const, retryOf: previous.id };
        // An execution recorded before versions were kept ran an unknown one: the current runs.
        const version = query.version === 'latest' ? fn.version : (previous.functionVersion ?? fn.version);
        if (version !== fn.version && !(await ownedFunction(em(), accountId, fn.id, version))?.hasVersion) {
          throw new AppError(
            'version_not_found',
            `The function no longer has version ${version}, which the failed execution ran (a function keeps its latest versions): retry it with version=latest.`,
          );
        }
        return accepted(await startExecution(em(), invoker, actor, fn, previous.params, retryOf, version));
      },
    }),
  ]);
}

const accepted = (execution: Execution) => data({ execution: executionHandle(execution) }, 202);

/** 200 with the result; 500 execution_error for a failed run; 202 when it outlived the wait. */
function answerSync({ outcome, execution, result }: Invoked): Answer {
  if (!outcome) return accepted(execution);
  if (outcome.status === executionStatus.failed) {
    throw new AppError('execution_error', execution.error!.message, { ...execution.error, executionId: execution.id });
  }
  return data({ execution: executionHandle(execution), result });
}
