import type { EntityManager } from '@mikro-orm/postgresql';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { AppError } from '../errors.ts';
import { newId } from '../ids.ts';
import { labelAttributes } from '../temporal/workflow-attributes.ts';
import type { replayBlocks } from '../../workflows/replay-blocks.ts';
import type { Automation } from './automation.entity.ts';
import { leaveToSweepIfDown } from './automations.service.ts';
import { maxListedMatches, type ListedMatch } from './replay-steps.ts';
import type { CreateReplay, ReplayView } from './replays.schemas.ts';
import type { TriggerControl } from './triggers.ts';

const replayNotFound = () => new AppError('replay_not_found', 'Replay not found.');

interface ReplayRow {
  id: string;
  automation_id: string;
  account_id: string;
  from_block: number;
  to_block: number;
  next_block: number;
  dry_run: boolean;
  status: ReplayView['status'];
  matches: number;
  runs_started: number;
  listed: ListedMatch[];
  error: { name: string; message: string } | null;
  created_at: Date;
  completed_at: Date | null;
}

const insertSql = `insert into "automation_replays"
  ("id", "automation_id", "account_id", "from_block", "to_block", "next_block", "dry_run")
  values (?, ?, ?, ?, ?, ?, ?)
  on conflict ("automation_id") where "status" = 'running' do nothing
  returning *`;

/**
 * Records a replay of the automation's blocks `fromBlock`–`toBlock`, then starts its workflow; a
 * replay recorded whose workflow Temporal did not take is started by the reconciler. One replay
 * runs at a time per automation (a partial unique index): another answers 409 naming it. The range
 * must be on the chain already; the automation may be active or not.
 */
export async function createReplay(
  em: EntityManager,
  control: TriggerControl,
  automation: Automation,
  input: CreateReplay,
): Promise<ReplayView> {
  if (automation.triggerType !== 'blockchain') {
    throw new AppError('invalid_request', 'Only an automation with a blockchain trigger replays blocks.', {
      field: 'trigger',
    });
  }
  const height = await control.neo.getBlockCount();
  if (input.toBlock >= height) {
    throw new AppError('invalid_request', `"toBlock" must be a block the chain holds: at most ${height - 1}.`, {
      field: 'toBlock',
    });
  }
  const params = [
    newId('rpl'),
    automation.id,
    automation.account.id,
    input.fromBlock,
    input.toBlock,
    input.fromBlock,
    input.dryRun,
  ];
  const [row] = await em.execute<ReplayRow[]>(insertSql, params);
  if (!row) throw await replayInProgress(em, automation.id);
  await leaveToSweepIfDown(control, () => startReplay(control, row.id, automation.account.id, automation.id));
  return replayView(row);
}

async function replayInProgress(em: EntityManager, automationId: string) {
  const [running] = await em.execute<{ id: string }[]>(
    `select "id" from "automation_replays" where "automation_id" = ? and "status" = 'running'`,
    [automationId],
  );
  return new AppError('replay_in_progress', 'A replay of this automation is running; one runs at a time.', {
    replayId: running?.id ?? null,
  });
}

/**
 * Starts a replay's workflow, on the deployment's task queue (never the follower's), labelled as
 * every workflow is. Once only: a replay whose workflow closed is not replayed again by a retry.
 */
export async function startReplay(control: Pick<TriggerControl, 'client' | 'taskQueue'>, replayId: string, accountId: string, automationId: string) {
  await control.client.workflow
    .start<typeof replayBlocks>('replayBlocks', {
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
  const [row] = await em.execute<ReplayRow[]>(
    `select * from "automation_replays" where "id" = ? and "automation_id" = ?`,
    [replayId, automationId],
  );
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
