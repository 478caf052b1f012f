/**
 * The automations resource: routes, this service and the answer's view sit here; each capability
 * below has a folder of its own over the ground they all read, `model/` (entities, schemas, the
 * automation's statements). `schedule/`, `price/` and `blocks/` turn a trigger into fires; `runs/`
 * records a fire as a run and steps it; `actions/` does what the run's action says (a function's
 * decision, a contract call, a webhook); `budget/` holds a transaction to the GAS it may spend;
 * `credentials/` seals the values that are secrets; `replays/` runs past blocks again;
 * `notifications/` tells what happened. `*.control.ts` modules write Temporal's state from rows.
 */
import { LockMode, type EntityManager } from '@mikro-orm/postgresql';
import { findOwned } from '../db/owned.ts';
import { AppError } from '../errors.ts';
import { ownedFunction } from '../functions/function.sql.ts';
import { cancelWorkflow } from '../temporal/cancel-workflow.ts';
import { Automation } from './model/automation.entity.ts';
import { sealCredentials, sealNewCredentials } from './credentials/credential-store.ts';
import type { MasterKeys } from '../crypto/envelope.ts';
import { AutomationRun } from './model/run.entity.ts';
import { templateRootProblem } from './model/arg-templates.ts';
import type { Trigger, TriggerType } from './model/trigger.schemas.ts';
import type { Action } from './model/action.schemas.ts';
import { assertSendingOnly } from './sending-only.ts';
import { signerIdOf, storedAction, storedActionOf } from './action-signer.ts';
import type { CreateAutomation, ListAutomations, UpdateAutomation } from './automations.schemas.ts';
import { resolvePriceSource } from './price/price-source.ts';
import { priceSourceKey } from './price/price-source-key.ts';
import { forgetPriceState } from './price/automation-price.sql.ts';
import { assertTriggerNames } from './blocks/trigger-names.ts';
import { assertDeliveryTargets } from './notifications/targets.ts';
import { stopWithError } from './notifications/error-event.ts';
import { startDeliveries } from './notifications/deliveries.control.ts';
import { nextFireOf } from './schedule/next-fire.ts';
import { followsBlocks } from './model/state-trigger-kinds.ts';
import { assertStateTriggerRoom } from './model/state-trigger-cap.ts';
import { leaveToSweepIfDown } from '../temporal/leave-to-sweep.ts';
import { resumeAt, startReplay } from './replays/replays.service.ts';
import { applyTrigger, removeTrigger, type TriggerChange, type TriggerControl } from './triggers.control.ts';
import { runStatus } from '../shared/outcomes.ts';
import { insertAutomation } from './model/automation.sql.ts';
import { assertNetworkConfigured, assertSameNetwork } from './automation-network.ts';
import { newHook, replaceTrigger } from './hooks/hook-setup.ts';
import { audit } from '../audit/audit.ts';
import type { Actor } from '../audit/actor.ts';
import { automationChange } from './automation-change.ts';
import { firstFailureOf } from './first-failure.ts';

const automationNotFound = () => new AppError('automation_not_found', 'Automation not found.');

/**
 * An account at its number of automations creates no more until it deletes some: its insert is
 * refused by the count PostgreSQL keeps (insertAutomation), which racing creates take in turn.
 */
const automationLimitReached = (limit: number) =>
  new AppError(
    'automation_limit_reached',
    `This account has ${limit} automations, the most it may have; delete one to create another.`,
    { limit },
  );

/**
 * Creates the automation if the account has room for it, then has Temporal run its trigger. The
 * checks that ask the node and those that read PostgreSQL run at once; the row, its credentials
 * and the account's count are written in one statement (insertAutomation), the account's creates
 * taking turns at its count, so that creates racing at the limit never pass it.
 */
export async function createAutomation(
  em: EntityManager,
  control: TriggerControl,
  actor: Actor,
  input: CreateAutomation,
  masterKeys: MasterKeys,
  automationLimit: number,
) {
  const { accountId } = actor;
  const network = input.network ?? control.defaultNetwork;
  assertNetworkConfigured(control.networks, network);
  assertSourceAllowed(control, input.trigger);
  assertTemplatesFit(input.trigger, input.action);
  assertSendingOnly(input.action, input.budget ?? null);
  const [, , , watchFromBlock, signerId] = await firstFailureOf([
    assertTriggerNames(control.chain(network), input.trigger),
    assertActionRunnable(em, accountId, input.action),
    assertDeliveryTargets(em, control.egress, accountId, input.action, input.notify),
    heightToWatchFrom(control, network, input.trigger.type, input.status),
    signerIdOf(em, accountId, input.action),
  ] as const);
  const automation = em.create(
    Automation,
    {
      account: accountId,
      name: input.name,
      network,
      status: input.status,
      triggerType: input.trigger.type,
      trigger: input.trigger,
      action: storedAction(input.action),
      functionId: functionIdOf(input.action),
      signerId,
      watchFromBlock,
      priceSource: null,
      errorDetails: null,
      notify: input.notify,
      gasBelow: [],
      budget: input.budget ?? null,
      createdByKeyId: actor.keyId,
      changedByKeyId: actor.keyId,
    },
    // Stored by insertAutomation, in one statement with its credentials and the account's count.
    { persist: false },
  );
  const { clear, sealed } = sealNewCredentials(masterKeys, automation, input);
  nameSource(automation, clear);
  const hook = newHook(automation);
  const inserted = await em.transactional(async (tx) => {
    if (input.trigger.type === 'state') await assertStateTriggerRoom(tx, accountId);
    const stored = (await insertAutomation(tx, automation, sealed, automationLimit)) && (hook?.insert(tx) ?? true);
    if (stored) audit(tx, actor, { action: 'automation.create', ...automationChange(automation.id, input) });
    return stored;
  });
  if (!inserted) throw automationLimitReached(automationLimit);
  await applyOrLeaveToSweep(control, automation, { created: true });
  return { automation, hookToken: hook?.token };
}

export async function listAutomations(em: EntityManager, accountId: string, query: ListAutomations) {
  const where = {
    account: accountId,
    ...(query.status ? { status: query.status } : {}),
    ...(query.triggerType ? { triggerType: query.triggerType } : {}),
    ...(query.network ? { network: query.network } : {}),
  };
  return em.findAndCount(Automation, where, {
    orderBy: { createdAt: 'desc', id: 'desc' },
    limit: query.limit,
    offset: query.offset,
  });
}

export function getAutomation(em: EntityManager, accountId: string, id: string) {
  return findOwned(em, Automation, id, accountId, automationNotFound);
}

/**
 * Applies a partial update, and answers the automation with its next fire time. Activating (or re-activating an automation the service stopped)
 * checks again that its action can run and that its network is configured, and clears the reason
 * it stopped. Its network never changes (assertSameNetwork). The row is committed first, its lock
 * released; Temporal is told after (see applyOrLeaveToSweep).
 */
export async function updateAutomation(
  em: EntityManager,
  control: TriggerControl,
  actor: Actor,
  id: string,
  input: UpdateAutomation,
  masterKeys: MasterKeys,
  changedBy: string | null = null,
) {
  const { accountId } = actor;
  if (input.trigger) {
    assertSourceAllowed(control, input.trigger);
    await assertTriggerNames(control.chain(await networkOf(em, accountId, id)), input.trigger);
  }
  const { automation, change, replay, hookToken } = await em.transactional(async (tx) => {
    const automation = await lockAutomation(tx, accountId, id);
    assertSameNetwork(automation, input.network);
    // Activated, it would follow and send on a network the deployment no longer has (409 naming it).
    if (input.status === 'active') control.chain(automation.network);
    const previousType = automation.triggerType;
    const wasActive = automation.status === 'active';
    const action = input.action ?? automation.action;
    assertSendingOnly(action, input.budget === undefined ? (automation.budget ?? null) : input.budget);
    if (input.action || input.status === 'active') await assertActionRunnable(tx, accountId, action);
    await assertDeliveryTargets(tx, control.egress, accountId, input.action, input.notify);
    if (input.name !== undefined) automation.name = input.name;
    if (input.trigger?.type === 'state' && previousType !== 'state') await assertStateTriggerRoom(tx, accountId);
    const hookToken = input.trigger && (await replaceTrigger(tx, automation, input.trigger));
    if (input.action) Object.assign(automation, await storedActionOf(tx, accountId, input.action));
    if (input.status) Object.assign(automation, { status: input.status, errorDetails: null });
    if (input.trigger || input.action) assertTemplatesFit(automation.trigger, automation.action);
    // Rules are told by index: new rules start with no balance seen under their thresholds.
    if (input.notify) Object.assign(automation, { notify: input.notify, gasBelow: [] });
    if (input.budget !== undefined) automation.budget = input.budget;
    const clear = await sealCredentials(tx, masterKeys, automation, input);
    if (input.trigger) nameSource(automation, clear);
    const rearm = automation.status === 'active' && (!wasActive || input.trigger !== undefined);
    if (rearm) await arm(control, automation);
    // Armed afresh, as a new trigger: what the source's poller decided for the old one is forgotten.
    if (rearm && automation.triggerType === 'price') await forgetPriceState(tx, automation.id);
    const resumed = await resume(tx, control, automation, wasActive, input.resumeFrom);
    automation.updatedAt = new Date();
    // Who last changed what it does cannot approve its runs (approvals.service.ts).
    if (changedBy) automation.changedByKeyId = changedBy;
    audit(tx, actor, { action: 'automation.update', ...automationChange(automation.id, input) });
    return { automation, change: { previousType }, replay: resumed?.replay ?? null, hookToken };
  });
  await applyLatest(em, control, id, change);
  if (replay) await leaveToSweepIfDown(control, () => startReplay(control, replay, accountId));
  return { automation, nextFireTime: nextFireOf(automation), replay, hookToken };
}

/** Applies made at most per update before the reconciler is left to finish (updates racing on). */
const appliesPerUpdate = 5;

/**
 * What another update committed meanwhile is what Temporal must run: applies the row as it is
 * now, then reads it again and applies it again while another update committed during the apply.
 * Two updates' applies may interleave (one removing the schedule the other just wrote): the last
 * apply made is then of the last row, whichever request makes it.
 */
async function applyLatest(em: EntityManager, control: TriggerControl, id: string, change: TriggerChange) {
  let applied: { at: number; type: TriggerType } | undefined;
  for (let round = 0; round < appliesPerUpdate; round++) {
    const current = await em.fork().findOne(Automation, { id });
    if (!current || current.updatedAt.getTime() === applied?.at) return;
    await applyOrLeaveToSweep(control, current, applied ? { previousType: applied.type } : change);
    applied = { at: current.updatedAt.getTime(), type: current.triggerType };
  }
}

/**
 * Deletes the automation and its run history, then stops its trigger for good. PostgreSQL
 * records the removal with the row's delete (automation_trigger_removals): a trigger Temporal
 * could not stop now is stopped by the reconciler.
 */
export async function deleteAutomation(em: EntityManager, control: TriggerControl, actor: Actor, id: string) {
  const { triggerType } = await em.transactional(async (tx) => {
    const automation = await lockAutomation(tx, actor.accountId, id);
    tx.remove(automation);
    audit(tx, actor, { action: 'automation.delete', ...automationChange(id, { name: automation.name }) });
    return automation;
  });
  await leaveToSweepIfDown(control, () => removeTrigger(control, id, triggerType));
}

/**
 * Makes Temporal run the committed row's trigger now, or, when Temporal does not answer, leaves it
 * to the reconciler's next pass (the row is the truth; docs/deployment.md): the request is not
 * failed for it, and no lock or pooled connection is held while Temporal is asked.
 */
function applyOrLeaveToSweep(control: TriggerControl, automation: Automation, change: TriggerChange) {
  return leaveToSweepIfDown(control, () => applyTrigger(control, automation, change));
}

/**
 * The network the automation follows, read apart (a fork) before its row is locked: an automation
 * keeps its network, so the node is asked with no lock held.
 */
async function networkOf(em: EntityManager, accountId: string, id: string): Promise<string> {
  const found = await em.fork().findOne(Automation, { id, account: accountId }, { fields: ['network'] });
  if (!found) throw automationNotFound();
  return found.network;
}

/**
 * The automation, its row locked until the transaction ends: changes of one automation, to its
 * row and to what runs in Temporal for it, happen one at a time, each seeing the one before.
 */
const lockAutomation = (em: EntityManager, accountId: string, id: string) =>
  findOwned(em, Automation, id, accountId, automationNotFound, LockMode.PESSIMISTIC_WRITE);

/**
 * The automations whose action runs a deleted function can no longer run: they move to `error`
 * with the reason, their triggers stop firing, and their running runs are cancelled (each runs the
 * function's code in its own workflow, and ends as a failure).
 */
export async function stopAutomationsOfFunction(em: EntityManager, control: TriggerControl, functionId: string) {
  const automations = await em.find(Automation, { functionId, status: { $ne: 'error' } });
  const errorDetails = {
    reason: 'function_deleted' as const,
    message: `The function ${functionId} this automation runs was deleted.`,
  };
  for (const automation of automations) {
    const notifications = await stopWithError(em, { id: automation.id }, errorDetails);
    Object.assign(automation, { status: 'error', errorDetails });
    await applyOrLeaveToSweep(control, automation, {});
    await startDeliveries(control.client, control.taskQueue, notifications);
  }
  const running = await em.find(
    AutomationRun,
    { automation: { functionId }, status: runStatus.running },
    { fields: ['id'] },
  );
  await Promise.all(running.map((run) => cancelWorkflow(control.client, run.id)));
}

/**
 * Starts the block followers again of the networks active blockchain automations need (a
 * follower was terminated by an operator, or Temporal lost its state): the API does this at start.
 */
export async function resumeBlockFollower(em: EntityManager, control: TriggerControl) {
  await control.blockFollowers.ensureWatched(em);
}

/**
 * A PATCH's `resumeFrom`, which applies only as it activates the automation: where its matching
 * resumes, and the replay that catches up a gap (replays.service.ts).
 */
async function resume(
  em: EntityManager,
  control: TriggerControl,
  automation: Automation,
  wasActive: boolean,
  resumeFrom: UpdateAutomation['resumeFrom'],
) {
  if (resumeFrom === undefined) return null;
  if (wasActive) {
    throw new AppError('invalid_request', '"resumeFrom" applies only when the PATCH activates the automation.', {
      field: 'resumeFrom',
    });
  }
  const resumed = await resumeAt(em, automation, resumeFrom, await control.chain(automation.network).getBlockCount());
  automation.watchFromBlock = resumed.watchFromBlock;
  return resumed;
}

/**
 * A blockchain or transaction trigger matches blocks from the current height on, not ones before it was armed; a
 * state trigger armed anew (created, changed or activated) starts with nothing seen.
 */
async function arm(control: TriggerControl, automation: Automation) {
  const { network, triggerType, status } = automation;
  automation.watchFromBlock = await heightToWatchFrom(control, network, triggerType, status);
}

/**
 * The height of its network an active trigger that follows blocks watches from (see arm); null
 * for any other.
 */
async function heightToWatchFrom(control: TriggerControl, network: string, type: TriggerType, status: string) {
  return followsBlocks(type) && status === 'active' ? await control.chain(network).getBlockCount() : null;
}

/**
 * A price trigger names the source it reads (price-source-key.ts), which its poller reads for
 * every automation of it; `clear`: the credentials just sealed, a custom source's URL among them.
 */
function nameSource(automation: Automation, clear: Map<string, string>) {
  const { trigger } = automation;
  automation.priceSource =
    trigger.type === 'price' ? priceSourceKey(trigger, automation.account.id, clear.get('trigger.source.url')) : null;
}

async function assertActionRunnable(em: EntityManager, accountId: string, action: Action) {
  if (action.type !== 'function') return;
  const fn = await ownedFunction(em, accountId, action.functionId, action.functionVersion);
  if (!fn) {
    throw new AppError('function_not_found', `No function ${action.functionId} exists in this account.`, {
      field: 'action.functionId',
    });
  }
  if (action.functionVersion !== undefined && !fn.hasVersion) {
    throw new AppError('invalid_request', `The function has no version ${action.functionVersion}.`, {
      field: 'action.functionVersion',
    });
  }
}

/**
 * A contract action's templates name what its trigger's fires carry: `{{trigger.price}}` on a
 * schedule would fail every run. Checked on the automation as created or as an update leaves it.
 */
function assertTemplatesFit(trigger: Trigger, action: Action) {
  if (action.type !== 'contract') return;
  const problem = templateRootProblem(trigger, action.args);
  if (problem) {
    const field = `action.${problem.field}`;
    throw new AppError('invalid_request', `"${field}" ${problem.message}.`, { field });
  }
}

/**
 * A price source whose URL names an address inside the service's network (or `localhost`) is
 * refused now; a name that resolves inside is refused at each poll, where DNS is asked.
 */
function assertSourceAllowed(control: TriggerControl, trigger: Trigger) {
  if (trigger.type !== 'price' || !trigger.source || !('url' in trigger.source)) return;
  const { url } = resolvePriceSource(trigger.source, trigger.asset, trigger.currency);
  const refusal = control.egress.literalRefusal(new URL(url));
  if (refusal) {
    throw new AppError('invalid_request', `The price source URL is refused: ${refusal}.`, {
      field: 'trigger.source.url',
    });
  }
}

const functionIdOf = (action: Action) => (action.type === 'function' ? action.functionId : null);
