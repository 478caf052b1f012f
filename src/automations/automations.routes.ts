import type { Router } from '@koa/router';
import { emptyBody } from '../wire/empty-body.ts';
import { AppError } from '../errors.ts';
import { z } from 'zod';
import { paginationOf } from '../wire/pagination.ts';
import { deletedMessage, paginationSchema } from '../wire/response-schemas.ts';
import { areaRouter, bare, route } from '../api/route-kit.ts';
import type { Resources } from '../resources.ts';
import {
  automationDetailsSchema,
  automationSchema,
  automationView,
  runDetails,
  runDetailsSchema,
  runSchema,
  runView,
  startedRunSchema,
} from './automation.view.ts';
import {
  createAutomationBody,
  listAutomationsQuery,
  listRunsQuery,
  updateAutomationBody,
} from './automations.schemas.ts';
import { testAutomationBody } from './blocks/trigger-test.schemas.ts';
import {
  createAutomation,
  deleteAutomation,
  getAutomation,
  listAutomations,
  updateAutomation,
} from './automations.service.ts';
import { fireManually, retryRun } from './runs/manual-runs.control.ts';
import { testAutomation } from './blocks/trigger-test.ts';
import { dryRunSlots } from './actions/action-dry-run.ts';
import { testAnswerSchema } from './blocks/trigger-test.view.ts';
import { getRun, listRuns } from './runs/fires.ts';
import { executionStats } from './runs/stats.ts';
import { refuseFrequentSchedule } from './schedule/schedule-floor.ts';
import { refuseFrequentPriceReads } from './price/price-read-floor.ts';
import type { Trigger } from './model/trigger.schemas.ts';
import type { TriggerControl } from './triggers.control.ts';
import { nextFireOf } from './schedule/next-fire.ts';
import type { Automation } from './model/automation.entity.ts';
import { idempotent } from '../api/idempotency.ts';
import { assertScope } from '../api/auth.ts';
import { gasView } from './budget/budget.view.ts';
import { receiptSchema, receiptView } from '../receipts/receipt.view.ts';
import { endedReceipt } from '../functions/receipt-read.ts';
import { createReplayBody, replaySchema } from './replays/replays.schemas.ts';
import { createReplay, getReplay } from './replays/replays.service.ts';
import { rotateHookToken } from './hooks/hook-setup.ts';
import { hookTokenSchema, withHookToken } from './hooks/hook.view.ts';
import { decisionsOf } from './approvals/approval.sql.ts';
import { approvalRoutes } from './approvals/approvals.routes.ts';

/** Pausing or resuming an automation: what `automations:operate` may change (the rest needs `automations:write`). */
const changesStatusOnly = (body: object) =>
  Object.keys(body).every((field) => field === 'status' || field === 'resumeFrom');

/**
 * The automations area: bare responses and upper-case error codes. `control`: the process's one
 * (src/app/main.ts).
 */
export function automationsRoutes(resources: Resources, control: TriggerControl): Router {
  // Creates and invokes are safe to repeat under an Idempotency-Key.
  const keyed = idempotent(resources);
  const { em } = resources;
  const { quotas } = resources.config;
  /** A trigger that fires, or reads its price, more often than the deployment allows is refused. */
  const refuseFrequentTrigger = (trigger: Trigger) => {
    if (trigger.type === 'schedule') refuseFrequentSchedule(trigger, quotas.shortestScheduleSeconds);
    if (trigger.type === 'price') refuseFrequentPriceReads(trigger, quotas.shortestPollSeconds);
  };
  const slots = dryRunSlots();
  const dryRunDeps = () => ({
    slots,
    egress: control.egress,
    em: em(),
    networks: resources.networks,
    masterKeys: resources.masterKeys,
    sandbox: {
      memoryLimitMb: resources.config.worker.sandboxMemoryMb,
      serviceCalls: resources.config.worker.sandboxServiceCalls,
    },
  });
  // Firing and retrying start a run and answer it (202) before it ends: no body, safe to repeat.
  const startsRun = {
    idempotency: keyed,
    body: emptyBody,
    bodyOptional: true,
    responses: { 202: startedRunSchema },
  } as const;
  // Read from the row alone: a read answers while Temporal is down.
  const withStats = async (automation: Automation) =>
    automationView(automation, await executionStats(em(), automation.id, nextFireOf(automation)));
  return areaRouter('/v1/automations', [
    route({
      method: 'get',
      path: '/',
      summary: 'List automations',
      description:
        "Returns the account's automations, newest first, filtered by `status` or `triggerType`; items carry no `executionStats`.",
      tag: 'Automations',
      scope: 'automations:read',
      query: listAutomationsQuery,
      responses: {
        200: z
          .strictObject({ automations: z.array(automationSchema), pagination: paginationSchema })
          .meta({ id: 'AutomationPage' }),
      },
      handle: async ({ accountId, query }) => {
        const [automations, total] = await listAutomations(em(), accountId, query);
        return bare({
          automations: automations.map((automation) => automationView(automation)),
          pagination: paginationOf(query, automations.length, total),
        });
      },
    }),
    route({
      method: 'post',
      path: '/',
      errors: [
        'function_not_found',
        'contract_not_found',
        'invalid_cron',
        'invalid_script_hash',
        'interval_too_short',
        'automation_limit_reached',
        'conflict',
      ],
      summary: 'Create an automation',
      description:
        'Creates an automation from a `trigger` and an `action`, with optional `notify` rules and a GAS `budget`, and arms its trigger (unless `status: "inactive"`). Defaults are filled in and returned; credentials (URLs, header values) are answered masked. Safe to repeat under an `Idempotency-Key`. Every trigger and action: docs/api.md, "Automations".',
      tag: 'Automations',
      scope: 'automations:write',
      idempotency: keyed,
      body: createAutomationBody,
      responses: { 201: automationSchema },
      handle: async ({ actor, body }) => {
        refuseFrequentTrigger(body.trigger);
        const limit = quotas.automationsPerAccount;
        const created = await createAutomation(em(), control, actor, body, resources.masterKeys, limit);
        return bare(withHookToken(automationView(created.automation), created.hookToken), 201);
      },
    }),
    route({
      method: 'get',
      path: '/:id',
      errors: ['automation_not_found'],
      summary: 'Retrieve an automation',
      description:
        'Returns the automation with its `executionStats` (last run, counts, next scheduled fire) and, for one that sends transactions, the GAS it spent and has left (`gas`).',
      tag: 'Automations',
      scope: 'automations:read',
      responses: { 200: automationDetailsSchema },
      handle: async ({ accountId, params }) => {
        const automation = await getAutomation(em(), accountId, params.id);
        const gas = await gasView(em(), automation);
        return bare({ ...(await withStats(automation)), ...(gas ? { gas } : {}) });
      },
    }),
    route({
      method: 'patch',
      path: '/:id',
      errors: [
        'automation_not_found',
        'function_not_found',
        'contract_not_found',
        'invalid_cron',
        'invalid_script_hash',
        'interval_too_short',
        'automation_limit_reached',
        'conflict',
        'replay_in_progress',
        'replay_limit_reached',
      ],
      summary: 'Update an automation',
      description:
        'Changes the fields sent; `trigger` and `action` are replaced whole. `status: "active"` re-arms the trigger and leaves `error`; with it, a blockchain trigger\'s `resumeFrom` replays the blocks missed. A credential sent back masked keeps its stored value. Pausing and resuming (`status`, `resumeFrom` alone) needs `automations:operate`; any other field `automations:write`.',
      tag: 'Automations',
      scope: 'automations:operate',
      body: updateAutomationBody,
      responses: { 200: automationDetailsSchema.extend({ replay: replaySchema.optional() }) },
      handle: async ({ ctx, actor, params, body }) => {
        if (!changesStatusOnly(body)) assertScope(ctx.state, 'automations:write');
        if (body.trigger) refuseFrequentTrigger(body.trigger);
        // A pause or a resume changes nothing a run signs: its key may still approve (approvals.service.ts).
        const changedBy = changesStatusOnly(body) ? null : actor.keyId;
        const { masterKeys } = resources;
        const updated = await updateAutomation(em(), control, actor, params.id, body, masterKeys, changedBy);
        const stats = await executionStats(em(), updated.automation.id, updated.nextFireTime);
        const gas = await gasView(em(), updated.automation);
        const { replay } = updated;
        return bare({
          ...withHookToken(automationView(updated.automation, stats), updated.hookToken),
          ...(gas ? { gas } : {}),
          ...(replay ? { replay } : {}),
        });
      },
    }),
    route({
      method: 'delete',
      path: '/:id',
      errors: ['automation_not_found'],
      summary: 'Delete an automation',
      description: 'Deletes the automation and its run history, and stops its trigger for good.',
      tag: 'Automations',
      scope: 'automations:write',
      responses: { 200: deletedMessage },
      handle: async ({ actor, params }) => {
        await deleteAutomation(em(), control, actor, params.id);
        return bare({ success: true, message: 'Automation deleted.' });
      },
    }),
    route({
      method: 'post',
      path: '/:id/trigger',
      errors: ['automation_not_found', 'conflict'],
      summary: 'Fire an automation',
      description:
        "Runs the automation's action now, as a `manual` run, whatever its status, and answers 202 with the run. Safe to repeat under an `Idempotency-Key`. Needs `automations:operate` (or `automations:write`).",
      tag: 'Automations',
      scope: 'automations:operate',
      ...startsRun,
      handle: async ({ accountId, actor, params }) => {
        const automation = await getAutomation(em(), accountId, params.id);
        return bare({ run: await fireManually(em(), control, actor, automation) }, 202);
      },
    }),
    route({
      method: 'post',
      path: '/:id/hook-token',
      errors: ['automation_not_found', 'conflict'],
      summary: 'Rotate a hook token',
      description:
        'Issues a new token for a `webhook` automation with token auth and answers it, this once, with the hook\'s `url`; the old token is refused from the next request on. Docs/api.md, "Inbound webhooks".',
      tag: 'Automations',
      scope: 'automations:write',
      body: emptyBody,
      bodyOptional: true,
      responses: { 200: hookTokenSchema },
      handle: async ({ accountId, params }) => {
        const automation = await getAutomation(em(), accountId, params.id);
        return bare(await rotateHookToken(em(), automation));
      },
    }),
    route({
      method: 'post',
      path: '/:id/test',
      errors: ['automation_not_found', 'not_found', 'conflict', 'contract_not_found', 'rate_limit_exceeded'],
      summary: 'Test an automation',
      description:
        'Tells whether the trigger matches a transaction (`txHash`), a block (`blockIndex`) or a `payload`, and what the action would do with it (a function runs in the sandbox, for at most 10 s, a contract call is test-invoked), without recording a run, signing or sending anything. A function action runs the function with its secrets: the key needs `functions:invoke` too.',
      tag: 'Automations',
      scope: 'automations:write',
      body: testAutomationBody,
      responses: { 200: testAnswerSchema },
      handle: async ({ ctx, accountId, params, body }) => {
        const automation = await getAutomation(em(), accountId, params.id);
        if (automation.action.type === 'function') assertScope(ctx.state, 'functions:invoke');
        return bare(await testAutomation(dryRunDeps(), automation, body));
      },
    }),
    route({
      method: 'get',
      path: '/:id/runs',
      errors: ['automation_not_found'],
      summary: 'List runs',
      description:
        "Returns the automation's runs, newest first, filtered by `status` (`running`, `success`, `failure`).",
      tag: 'Automations',
      scope: 'automations:read',
      query: listRunsQuery,
      responses: {
        200: z
          .strictObject({ runs: z.array(runSchema), pagination: paginationSchema })
          .meta({ id: 'AutomationRunPage' }),
      },
      handle: async ({ accountId, params, query }) => {
        const automation = await getAutomation(em(), accountId, params.id);
        const [runs, total] = await listRuns(em(), automation.id, query);
        const decisions = await decisionsOf(
          em(),
          runs.flatMap((run) => (run.approval ? [run.id] : [])),
        );
        const shown = runs.map((run) => runView(run, decisions));
        return bare({ runs: shown, pagination: paginationOf(query, runs.length, total) });
      },
    }),
    route({
      method: 'get',
      path: '/:id/runs/:runId',
      errors: ['automation_not_found', 'run_not_found'],
      summary: 'Retrieve a run',
      description:
        'Returns one run: what fired it, its outcome (an execution, a transaction, an error) and the notifications it sent.',
      tag: 'Automations',
      scope: 'automations:read',
      responses: { 200: runDetailsSchema },
      handle: async ({ accountId, params }) => {
        const automation = await getAutomation(em(), accountId, params.id);
        const { run, notifications } = await getRun(em(), automation.id, params.runId);
        const decisions = run.approval ? await decisionsOf(em(), [run.id]) : [];
        return bare(runDetails(run, notifications, decisions));
      },
    }),
    route({
      method: 'get',
      path: '/:id/runs/:runId/receipt',
      errors: ['automation_not_found', 'run_not_found', 'receipt_unavailable'],
      summary: "Retrieve a run's receipt",
      description:
        "Returns the signed receipt of the run's function execution (its decision, for a function action that decides), as GET /v1/functions/{id}/executions/{executionId}/receipt does. 409 `RECEIPT_UNAVAILABLE` while it runs, for a run that ran no function, and for executions ended without a receipt.",
      tag: 'Automations',
      scope: 'automations:read',
      responses: { 200: receiptSchema },
      handle: async ({ accountId, params }) => {
        const automation = await getAutomation(em(), accountId, params.id);
        const { run } = await getRun(em(), automation.id, params.runId);
        if (!run.executionId) throw new AppError('receipt_unavailable', 'The run executed no function.');
        return bare(receiptView(run.executionId, await endedReceipt(em(), run.executionId)));
      },
    }),
    route({
      method: 'post',
      path: '/:id/runs/:runId/retry',
      errors: ['automation_not_found', 'run_not_found', 'conflict', 'transaction_pending'],
      summary: 'Retry a failed run',
      description:
        "Starts a new run of the current action with the failed run's trigger (`retryOf` set) and answers 202 with it. Only a `failure` run can be retried; one whose transaction may still land answers 409 `TRANSACTION_PENDING`. Needs `automations:operate` (or `automations:write`).",
      tag: 'Automations',
      scope: 'automations:operate',
      ...startsRun,
      handle: async ({ accountId, actor, params }) => {
        const automation = await getAutomation(em(), accountId, params.id);
        return bare({ run: await retryRun(em(), control, actor, automation, params.runId) }, 202);
      },
    }),
    ...approvalRoutes(resources, control),
    route({
      method: 'post',
      path: '/:id/replays',
      errors: ['automation_not_found', 'replay_in_progress', 'replay_limit_reached'],
      summary: 'Replay past blocks',
      description:
        "Matches a range of past blocks (at most 100,000) with the automation's blockchain trigger and runs the action on each match that never fired it before; `dryRun: true` lists the matches and runs nothing. Answers 202 with the replay; one runs at a time per automation (409 `REPLAY_IN_PROGRESS`) and 10 at a time per account (409 `REPLAY_LIMIT_REACHED`). Needs `automations:operate` (or `automations:write`).",
      tag: 'Automations',
      scope: 'automations:operate',
      idempotency: keyed,
      body: createReplayBody,
      responses: { 202: replaySchema },
      handle: async ({ accountId, actor, params, body }) => {
        const automation = await getAutomation(em(), accountId, params.id);
        return bare(await createReplay(em(), control, actor, automation, body), 202);
      },
    }),
    route({
      method: 'get',
      path: '/:id/replays/:replayId',
      errors: ['automation_not_found', 'replay_not_found'],
      summary: 'Retrieve a replay',
      description:
        "Returns a replay's progress: its status, the blocks done, the matches found and the runs started (a dry run's matches).",
      tag: 'Automations',
      scope: 'automations:read',
      responses: { 200: replaySchema },
      handle: async ({ accountId, params }) => {
        const automation = await getAutomation(em(), accountId, params.id);
        return bare(await getReplay(em(), automation.id, params.replayId));
      },
    }),
  ]);
}
