/**
 * replays/: an automation's past blocks run again. This service records a replay and starts its
 * workflow; replay-steps.ts reads the blocks and matches them as the follower does.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { AppError } from '../../errors.ts';
import { newId } from '../../ids.ts';
import { audit } from '../../audit/audit.ts';
import type { Actor } from '../../audit/actor.ts';
import { valuesSummary } from '../../audit/summary.ts';
import { labelAttributes } from '../../shared/workflow-attributes.ts';
import type { ReplayBlocksWorkflow } from '../../shared/workflow-signatures.ts';
import type { Automation } from '../model/automation.entity.ts';
import { leaveToSweepIfDown } from '../../temporal/leave-to-sweep.ts';
import { followedUntil } from '../model/automation.sql.ts';
import { maxListedMatches } from './replay-steps.ts';
import { insertReplay, replayRow, runningReplayId, type ReplayRow } from './replay.sql.ts';
import { maxReplayBlocks, type CreateReplay, type ReplayView } from './replays.schemas.ts';
import type { NeoRpc } from '../../chain/rpc.ts';
import type { WorkflowStarter } from '../../temporal/workflow-starter.ts';

const replayNotFound = () => new AppError('replay_not_found', 'Replay not found.');

/**
 * Replays of one account running at once, dry or not (docs/api.md): each holds a workflow and asks
 * for pages, so an account with 1,000 automations cannot replay all of them at once; past it, 409
 * `replay_limit_reached` until one ends.
 */
export const replaysPerAccount = 10;

const replayLimitReached = () =>
  new AppError(
    'replay_limit_reached',
    `This account runs ${replaysPerAccount} replays, the most it may run at once; start another once one ends.`,
    { limit: replaysPerAccount },
  );

/**
 * Records a replay of the automation's blocks `fromBlock`–`toBlock`, then starts its workflow; a
 * replay recorded whose workflow Temporal did not take is started by the reconciler. The range
 * must be on the automation's network's chain already; the automation may be active or not.
 */
export async function createReplay(
  em: EntityManager,
  control: WorkflowStarter & { chain(network: string): NeoRpc },
  actor: Actor,
  automation: Automation,
  input: CreateReplay,
): Promise<ReplayView> {
  if (automation.triggerType !== 'blockchain') {
    throw new AppError('invalid_request', 'Only an automation with a blockchain trigger replays blocks.', {
      field: 'trigger',
    });
  }
  const height = await control.chain(automation.network).getBlockCount();
  if (input.toBlock >= height) {
    throw new AppError('invalid_request', `"toBlock" must be a block the chain holds: at most ${height - 1}.`, {
      field: 'toBlock',
    });
  }
  const replay = await em.transactional(async (tx) => {
    const recorded = await recordReplay(tx, automation, input);
    const { fromBlock, toBlock, dryRun } = input;
    audit(tx, actor, {
      action: 'replay.create',
      resource: { type: 'replay', id: recorded.id },
      summary: valuesSummary({ automationId: automation.id, fromBlock, toBlock, dryRun }),
    });
    return recorded;
  });
  await leaveToSweepIfDown(control, () => startReplay(control, replay, automation.account.id));
  return replay;
}

/**
 * The replay's row, inserted; one replay runs at a time per automation (a partial unique index):
 * 409 naming it; `replaysPerAccount` of the account at a time: 409 with the limit.
 */
async function recordReplay(em: EntityManager, automation: Automation, input: CreateReplay): Promise<ReplayView> {
  const id = newId('rpl');
  const { fromBlock, toBlock, dryRun } = input;
  const replay = { id, automationId: automation.id, accountId: automation.account.id, fromBlock, toBlock, dryRun };
  const row = await insertReplay(em, replay, replaysPerAccount);
  if (!row) {
    const running = await runningReplayId(em, automation.id);
    throw running === undefined ? replayLimitReached() : replayInProgress(running);
  }
  return replayView(row);
}

/** The replay a PATCH to `active` with `resumeFrom` records, and the block it watches live from. */
interface Resumption {
  watchFromBlock: number;
  replay: ReplayView | null;
}

/**
 * Where an automation a PATCH activates resumes (inside the PATCH's transaction, its row locked):
 * live matching from the current height (`current`, the default), or from a block ahead; a block
 * behind (`lastProcessed`: the follower's cursor when it last stopped being active) is caught up by
 * a replay up to the current height, recorded here and started once the PATCH committed.
 */
export async function resumeAt(
  em: EntityManager,
  automation: Automation,
  resumeFrom: number | 'lastProcessed' | 'current',
  height: number,
): Promise<Resumption> {
  if (automation.triggerType !== 'blockchain') {
    throw new AppError('invalid_request', 'Only an automation with a blockchain trigger resumes from a block.', {
      field: 'resumeFrom',
    });
  }
  const from = resumeFrom === 'lastProcessed' ? await lastProcessed(em, automation.id) : resumeFrom;
  if (from === 'current' || from >= height) {
    return { watchFromBlock: from === 'current' ? height : from, replay: null };
  }
  if (height - from > maxReplayBlocks) {
    throw new AppError(
      'invalid_request',
      `Resuming from block ${from} replays ${height - from} blocks, more than ${maxReplayBlocks}: replay the range in parts (POST /v1/automations/{id}/replays), then resume from 'current'.`,
      { field: 'resumeFrom' },
    );
  }
  const replay = await recordReplay(em, automation, { fromBlock: from, toBlock: height - 1, dryRun: false });
  return { watchFromBlock: height, replay };
}

async function lastProcessed(em: EntityManager, automationId: string): Promise<number> {
  const followed = await followedUntil(em, automationId);
  if (followed === null) {
    throw new AppError(
      'invalid_request',
      'This automation was never followed while active: no block was processed for it.',
      {
        field: 'resumeFrom',
      },
    );
  }
  return followed;
}

function replayInProgress(replayId: string) {
  return new AppError('replay_in_progress', 'A replay of this automation is running; one runs at a time.', {
    replayId,
  });
}

/**
 * Starts a replay's workflow, on the deployment's task queue (never the follower's), labelled as
 * every workflow is. Once only: a replay whose workflow closed is not replayed again by a retry.
 */
export async function startReplay(
  control: Omit<WorkflowStarter, 'log'>,
  replay: Pick<ReplayView, 'id' | 'automationId'>,
  accountId: string,
) {
  const { id: replayId, automationId } = replay;
  await control.client.workflow
    .start<ReplayBlocksWorkflow>('replayBlocks', {
      workflowId: replayId,
      taskQueue: control.taskQueue,
      args: [replayId],
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
      typedSearchAttributes: labelAttributes({ accountId, automationId, trigger: 'replay' }),
    })
    .catch((error: unknown) => {
      if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
    });
}

/** The replay of the automation, read from its row alone. */
export async function getReplay(em: EntityManager, automationId: string, replayId: string): Promise<ReplayView> {
  const row = await replayRow(em, automationId, replayId);
  if (!row) throw replayNotFound();
  return replayView(row);
}

function replayView(row: ReplayRow): ReplayView {
  const blocksTotal = row.to_block - row.from_block + 1;
  return {
    id: row.id,
    automationId: row.automation_id,
    status: row.status,
    dryRun: row.dry_run,
    fromBlock: row.from_block,
    toBlock: row.to_block,
    blocksDone: row.next_block - row.from_block,
    blocksTotal,
    matchCount: row.matches,
    runsStarted: row.runs_started,
    ...(row.dry_run ? { matches: row.listed, matchesTruncated: row.matches > maxListedMatches } : {}),
    error: row.error,
    createdAt: new Date(row.created_at).toISOString(),
    completedAt: row.completed_at ? new Date(row.completed_at).toISOString() : null,
  };
}
