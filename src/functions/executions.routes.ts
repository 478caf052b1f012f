import type { Router } from '@koa/router';
import type { Context } from 'koa';
import { callerOf, requireScope } from '../api/auth.ts';
import { pageEnvelope } from '../api/pagination.ts';
import { parseBody, parseQuery } from '../api/validate.ts';
import { apiRouter } from '../api/router.ts';
import { AppError } from '../errors.ts';
import type { Services } from '../services.ts';
import type { Execution } from './execution.entity.ts';
import { executionDetails, executionHandle, executionListItem } from './execution.view.ts';
import { invokeBody, listExecutionsQuery } from './executions.schemas.ts';
import { getExecution, invokeAndWait, invokerOf, listExecutions, startExecution } from './executions.service.ts';
import { getFunction } from './functions.service.ts';
import type { EndedExecution } from './local-runs.ts';
import { openResult } from './result-seal.ts';

/** How long a synchronous invoke waits beyond the function's own timeout before answering 202. */
const syncGraceMs = 15_000;

/** Invocations and their history, in the functions area's envelope. */
export function executionsRoutes(services: Services): Router {
  const { em } = services;
  const invoker = invokerOf(services);
  const fnOf = (ctx: Context) =>
    getFunction(em(), callerOf(ctx.state).accountId, (ctx.params as Record<string, string>).id!);
  const executionOf = async (ctx: Context) => {
    const fn = await fnOf(ctx);
    return { fn, execution: await getExecution(em(), fn, (ctx.params as Record<string, string>).executionId!) };
  };
  return apiRouter('/v1/functions/:id')
    .post('/invoke', requireScope('functions:invoke'), async (ctx) => {
      const input = parseBody(invokeBody, ctx.request.body ?? {});
      const fn = await fnOf(ctx);
      if (input.async) return accepted(ctx, await startExecution(em(), invoker, fn, input.params, { type: 'api' }));
      const waitMs = fn.timeout * 1000 + syncGraceMs;
      answerSync(ctx, await invokeAndWait(em(), invoker, services.masterKeys, fn, input.params, waitMs));
    })
    .get('/executions', requireScope('functions:read'), async (ctx) => {
      const query = parseQuery(listExecutionsQuery, ctx.query);
      const [executions, total] = await listExecutions(em(), await fnOf(ctx), query);
      ctx.body = pageEnvelope(executions.map(executionListItem), query, total);
    })
    .get('/executions/:executionId', requireScope('functions:read'), async (ctx) => {
      const { execution } = await executionOf(ctx);
      const result = await openResult(em(), services.masterKeys, execution);
      ctx.body = { success: true, data: executionDetails(execution, result) };
    })
    .post('/executions/:executionId/retry', requireScope('functions:invoke'), async (ctx) => {
      const { fn, execution: previous } = await executionOf(ctx);
      if (previous.status !== 'failed') {
        throw new AppError('conflict', `Only failed executions can be retried; this one is ${previous.status}.`);
      }
      const retryOf = { type: 'retry' as const, retryOf: previous.id };
      accepted(ctx, await startExecution(em(), invoker, fn, previous.params, retryOf));
    });
}

function accepted(ctx: Context, execution: Execution) {
  ctx.status = 202;
  ctx.body = { success: true, data: { execution: executionHandle(execution) } };
}

/** 200 with the result; 500 execution_error for a failed run; 202 when it outlived the wait. */
function answerSync(ctx: Context, { execution, result }: EndedExecution) {
  if (execution.status === 'running') return accepted(ctx, execution);
  if (execution.status === 'failed') {
    throw new AppError('execution_error', execution.error!.message, { ...execution.error, executionId: execution.id });
  }
  ctx.body = { success: true, data: { execution: executionHandle(execution), result } };
}
