import { z } from 'zod';
import { isoTime } from '../wire/response-schemas.ts';
import { storable } from '../db/storable.ts';
import type { Notification } from './notifications/notification.entity.ts';
import { notifyEvents, notifySchema } from './model/notify.schemas.ts';
import { triggerSchema } from './model/trigger.schemas.ts';
import { actionSchema } from './model/action.schemas.ts';
import { shownAction } from './action-signer.ts';
import { budgetSchema } from '../chain/gas-budget.ts';
import { gasSchema } from './budget/budget.view.ts';
import type { Automation } from './model/automation.entity.ts';
import { approvalStatuses, type ApprovalRequest, type AutomationRun, type FirePayload } from './model/run.entity.ts';
import type { DecisionRow } from './approvals/approval.sql.ts';
import type { ExecutionStats } from './runs/stats.ts';
import { notificationStatuses, runStatus, runStatuses } from '../shared/outcomes.ts';

/** An automation as the API shows it; `details` says why the service set `error`. */
export function automationView(automation: Automation, stats?: ExecutionStats) {
  return {
    id: automation.id,
    name: automation.name,
    network: automation.network,
    status: automation.status,
    trigger: automation.trigger,
    action: shownAction(automation.action, automation.signerId),
    notify: automation.notify,
    ...(automation.budget ? { budget: automation.budget } : {}),
    ...(automation.errorDetails ? { details: automation.errorDetails } : {}),
    ...(stats ? { executionStats: stats } : {}),
    createdAt: automation.createdAt.toISOString(),
    updatedAt: automation.updatedAt.toISOString(),
  };
}

/**
 * A run's wait for approvals: what it asked (its calls, its fees then, until when) and the keys'
 * decisions, oldest first, from `decisions` (all of the run's, or more).
 */
function approvalView(run: AutomationRun, request: ApprovalRequest, decisions: DecisionRow[]) {
  const mine = decisions.filter((row) => row.run_id === run.id);
  const of = (row: DecisionRow) => ({ keyId: row.key_id, at: new Date(row.decided_at).toISOString() });
  const rejection = mine.find((row) => row.decision === 'reject');
  return {
    status: request.status,
    required: request.required,
    calls: run.calls ?? [],
    fees: request.fees,
    requestedAt: request.requestedAt,
    deadline: request.deadline,
    approvals: mine.filter((row) => row.decision === 'approve').map(of),
    ...(rejection ? { rejectedBy: of(rejection) } : {}),
  };
}

/**
 * A run in the history: what fired it (without a notification's full state) and what it did;
 * `decisions`: the keys' approvals and rejections of the runs shown (approvals/approval.sql.ts).
 */
export function runView(run: AutomationRun, decisions: DecisionRow[] = []) {
  return {
    id: run.id,
    network: run.network,
    status: run.status,
    startedAt: run.startedAt.toISOString(),
    completedAt: run.completedAt?.toISOString() ?? null,
    duration: run.duration,
    trigger: summary(run.trigger),
    ...(run.retryOf ? { retryOf: run.retryOf } : {}),
    ...(run.executionId ? { executionId: run.executionId } : {}),
    ...(run.skipped !== null ? { skipped: run.skipped } : {}),
    ...(run.calls !== null ? { calls: run.calls } : {}),
    ...(run.approval ? { approval: approvalView(run, run.approval, decisions) } : {}),
    // A contract action's outcome; a fault in its test invocation has no transaction.
    ...(run.vmState || run.txHash ? contractOutcome(run) : {}),
    error: run.error,
  };
}

const contractOutcome = (run: AutomationRun) => ({
  txHash: run.txHash,
  vmState: run.vmState,
  gasConsumed: run.gasConsumed,
  systemFee: run.systemFee,
  networkFee: run.networkFee,
  validUntilBlock: run.validUntilBlock,
  relayError: run.relayError,
});

/**
 * The most of an event's decoded arguments a run's record answers, as JSON characters: a Neo
 * notification's state is at most 1 KiB serialised, so this holds any the chain emits, and bounds
 * a page of 100 runs whatever a stored record holds.
 */
export const maxShownStateChars = 16 * 1024;

function summary(payload: FirePayload) {
  if (payload.type === 'webhook') return webhookSummary(payload);
  if (payload.type !== 'blockchain') return payload;
  const { scriptHash, eventName, state, txHash, blockHash, blockIndex, notificationIndex } = payload;
  return {
    type: payload.type,
    scriptHash,
    eventName,
    ...shownState(state),
    txHash,
    blockHash,
    blockIndex,
    notificationIndex,
  };
}

/** A webhook's body as its run received it; over maxShownStateChars, left out with `bodyTooLarge`. */
function webhookSummary(payload: Extract<FirePayload, { type: 'webhook' }>) {
  const { body, ...rest } = payload;
  return JSON.stringify(body).length <= maxShownStateChars ? payload : { ...rest, bodyTooLarge: true as const };
}

/**
 * The event's arguments as the action received them (`state`: by ABI parameter name, a list
 * without an ABI, null when they could not be decoded), storable as the record stores them; over
 * maxShownStateChars, left out with `stateTooLarge`.
 */
function shownState(state: unknown): { state: unknown } | { stateTooLarge: true } {
  const shown = storable(state ?? null);
  return JSON.stringify(shown).length <= maxShownStateChars ? { state: shown } : { stateTooLarge: true };
}

/**
 * The trigger and action as stored: what the create and update schemas accepted, so the same
 * schemas declare them (their refinements hold for what was stored).
 */
export const automationSchema = z
  .strictObject({
    id: z.string(),
    name: z.string(),
    /** The configured network it follows and sends on; fixed at create. */
    network: z.string(),
    status: z.enum(['active', 'inactive', 'error']),
    trigger: triggerSchema,
    action: actionSchema,
    notify: notifySchema,
    /** As set on the automation; without it, its account's default holds. */
    budget: budgetSchema.optional(),
    details: z
      .strictObject({
        reason: z.enum(['function_deleted', 'trigger_unavailable', 'budget_exhausted', 'network_unavailable']),
        message: z.string(),
        since: isoTime.optional(),
        lastError: z.string().optional(),
      })
      .optional(),
    createdAt: isoTime,
    updatedAt: isoTime,
  })
  .meta({ id: 'Automation' });

/** One automation as its get and update answer it: with its runs in figures, and its gas when its action sends. */
export const automationDetailsSchema = automationSchema
  .extend({
    /** Its budget in force and what is left of it. */
    gas: gasSchema.optional(),
    executionStats: z
      .strictObject({
        lastExecution: isoTime.nullable(),
        lastStatus: z.enum([runStatus.success, runStatus.failure]).nullable(),
        successCount: z.number().int(),
        failureCount: z.number().int(),
        nextExecution: isoTime.nullable(),
      })
      .meta({ id: 'AutomationStats' }),
  })
  .meta({ id: 'AutomationDetails' });

const runTriggerSchema = z
  .discriminatedUnion('type', [
    z.strictObject({ type: z.literal('schedule'), scheduledAt: isoTime }),
    z.strictObject({
      type: z.literal('blockchain'),
      scriptHash: z.string(),
      eventName: z.string(),
      state: z
        .unknown()
        .optional()
        .describe(
          "The event's decoded arguments, as the action received them: by ABI parameter name (a list without an ABI); null when they could not be decoded. Left out, with `stateTooLarge`, over 16 KiB of JSON.",
        ),
      stateTooLarge: z.literal(true).optional(),
      txHash: z.string().nullable(),
      blockHash: z.string(),
      blockIndex: z.number().int(),
      notificationIndex: z.number().int(),
    }),
    z.strictObject({
      type: z.literal('transaction'),
      txHash: z.string(),
      blockHash: z.string(),
      blockIndex: z.number().int(),
      sender: z.string(),
      vmState: z.enum(['HALT', 'FAULT']),
      exception: z.string().nullable(),
      calls: z.array(z.strictObject({ scriptHash: z.string(), operation: z.string() })),
    }),
    z.strictObject({
      type: z.literal('price'),
      asset: z.string(),
      currency: z.string(),
      price: z.string(),
      observedAt: isoTime.nullable(),
    }),
    z.strictObject({
      type: z.literal('state'),
      scriptHash: z.string(),
      operation: z.string(),
      value: z.string().describe('What was read: a whole number, or base64 for bytes that are none.'),
      blockIndex: z.number().int(),
      blockHash: z.string(),
    }),
    z.strictObject({ type: z.literal('manual') }),
    z.strictObject({
      type: z.literal('webhook'),
      body: z.unknown().optional().describe("The request's JSON body; left out, with `bodyTooLarge`, over 16 KiB."),
      bodyTooLarge: z.literal(true).optional(),
      headers: z.record(z.string(), z.string()).describe('content-type, user-agent and the headers the trigger names.'),
      receivedAt: isoTime,
    }),
  ])
  .meta({ id: 'RunTrigger' });

const callsSchema = z.array(
  z.strictObject({
    scriptHash: z.string(),
    operation: z.string(),
    args: z.array(z.strictObject({ type: z.string(), value: z.unknown() })),
  }),
);

const decisionSchema = z.strictObject({ keyId: z.string(), at: isoTime });

const approvalSchema = z
  .strictObject({
    status: z.enum(approvalStatuses),
    required: z.number().int(),
    calls: callsSchema.describe('What the transaction waiting for approvals calls.'),
    fees: z
      .strictObject({ systemFee: z.string(), networkFee: z.string() })
      .describe("The transaction's fees when the run asked, in GAS fractions; it is re-tested once approved."),
    requestedAt: isoTime,
    deadline: isoTime.describe('When the run ends `ApprovalExpired` unless approved.'),
    approvals: z.array(decisionSchema),
    rejectedBy: decisionSchema.optional(),
  })
  .meta({ id: 'RunApproval' });

export const runSchema = z
  .strictObject({
    id: z.string(),
    /** The network it ran on: its automation's. */
    network: z.string(),
    status: z.enum(runStatuses),
    startedAt: isoTime,
    completedAt: isoTime.nullable(),
    duration: z.number().int().nullable(),
    trigger: runTriggerSchema,
    retryOf: z.string().optional(),
    executionId: z.string().optional(),
    skipped: z.string().optional().describe('Why a deciding function sent nothing; the run is a success.'),
    calls: callsSchema
      .optional()
      .describe(
        "What the run's transaction calls, as sent (templates resolved, or a function's decision), stored before signing.",
      ),
    approval: approvalSchema
      .optional()
      .describe('A run whose action asks for approvals: its wait before signing (docs/api.md, "Approvals").'),
    txHash: z.string().nullable().optional(),
    vmState: z.string().nullable().optional(),
    gasConsumed: z.string().nullable().optional(),
    systemFee: z.string().nullable().optional(),
    networkFee: z.string().nullable().optional(),
    validUntilBlock: z.number().int().nullable().optional(),
    relayError: z.string().nullable().optional(),
    error: z
      .strictObject({
        name: z.string(),
        message: z.string(),
        stack: z.string().optional(),
        /** A webhook action's last answer. */
        status: z.number().int().optional(),
        body: z.string().optional(),
      })
      .nullable(),
  })
  .meta({ id: 'AutomationRun' });

/** One run with what it told: its notifications, each with how its delivery went. */
export function runDetails(run: AutomationRun, notifications: Notification[], decisions: DecisionRow[] = []) {
  return {
    ...runView(run, decisions),
    notifications: notifications.map((notification) => ({
      id: notification.id,
      channel: notification.channel.type,
      event: notification.event,
      status: notification.status,
      attempts: notification.attempts,
    })),
  };
}

export const runDetailsSchema = runSchema
  .extend({
    notifications: z.array(
      z.strictObject({
        /** What a webhook channel's receiver gets as `Neoflow-Delivery`. */
        id: z.string(),
        channel: z.enum(['webhook', 'slack', 'discord', 'telegram']),
        event: z.enum(notifyEvents),
        status: z.enum(notificationStatuses),
        attempts: z.number().int(),
      }),
    ),
  })
  .meta({ id: 'AutomationRunDetails' });

/** What firing or retrying answers: the new run, started. */
export const startedRunSchema = z
  .strictObject({
    run: z.strictObject({ id: z.string(), status: z.literal(runStatus.running), startedAt: isoTime }),
  })
  .meta({ id: 'StartedRun' });
