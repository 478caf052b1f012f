import type { EntityManager } from '@mikro-orm/postgresql';
import { executeBound } from '../../db/bound-statement.ts';
import { jsonbParam } from '../../db/jsonb-param.ts';
import type { BlockchainTrigger } from '../model/trigger.schemas.ts';
import type { ReplayView } from './replays.schemas.ts';
import { replayErrorName, replayStatus } from '../../shared/outcomes.ts';
import { sweepPage } from '../../db/sweep-page.ts';

/** The hand-written statements of the `automation_replays` table. */

/** A match as a dry run lists it. */
export interface ListedMatch {
  blockIndex: number;
  txHash: string | null;
  notificationIndex: number;
  state: unknown;
}

/** A replay's row as it is stored. */
export interface ReplayRow {
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

/** Taken before an account's running replays are counted: its starts count one after another. */
const lockAccountSql = `select pg_advisory_xact_lock(hashtextextended('automation_replays:' || ?, 0))`;

const insertSql = `insert into "automation_replays"
  ("id", "automation_id", "account_id", "from_block", "to_block", "next_block", "dry_run")
  select ?, ?, ?, ?, ?, ?, ?
  where (select count(*) from "automation_replays" where "account_id" = ? and "status" = '${replayStatus.running}') < ?
  on conflict ("automation_id") where "status" = '${replayStatus.running}' do nothing
  returning *`;

/**
 * Records a replay from `fromBlock`; undefined when one of the automation runs already, or when
 * the account runs `limit` replays. The account's starts take its lock in turn (held to the end of
 * the transaction, the caller's if there is one), so racing starts never pass the limit.
 */
export async function insertReplay(
  em: EntityManager,
  replay: { id: string; automationId: string; accountId: string; fromBlock: number; toBlock: number; dryRun: boolean },
  limit: number,
): Promise<ReplayRow | undefined> {
  const { id, automationId, accountId, fromBlock, toBlock, dryRun } = replay;
  const params = [id, automationId, accountId, fromBlock, toBlock, fromBlock, dryRun, accountId, limit];
  return em.transactional(async (tx) => {
    await tx.execute(lockAccountSql, [accountId]);
    const [row] = await tx.execute<ReplayRow[]>(insertSql, params);
    return row;
  });
}

/** The replay of the automation that runs, if one does. */
export async function runningReplayId(em: EntityManager, automationId: string): Promise<string | undefined> {
  const [running] = await em.execute<{ id: string }[]>(
    `select "id" from "automation_replays" where "automation_id" = ? and "status" = '${replayStatus.running}'`,
    [automationId],
  );
  return running?.id;
}

/** The account whose replay it is, to take its turn for a page; undefined once the row is gone. */
export async function accountOfReplay(em: EntityManager, replayId: string): Promise<string | undefined> {
  const [row] = await em.execute<{ account_id: string }[]>(
    `select "account_id" from "automation_replays" where "id" = ?`,
    [replayId],
  );
  return row?.account_id;
}

export async function replayRow(em: EntityManager, automationId: string, replayId: string) {
  const [row] = await em.execute<ReplayRow[]>(
    `select * from "automation_replays" where "id" = ? and "automation_id" = ?`,
    [replayId, automationId],
  );
  return row;
}

/** A running replay as its next page reads it, with its automation's trigger as it is now. */
interface RunningReplayRow {
  automation_id: string;
  account_id: string;
  next_block: number;
  to_block: number;
  dry_run: boolean;
  listed_count: number;
  trigger: BlockchainTrigger;
  /** Its automation's network, by name: where its blocks are read. */
  network: string;
}

const readSql = `select r."automation_id", r."account_id", r."next_block", r."to_block", r."dry_run",
  jsonb_array_length(r."listed") as "listed_count", a."trigger", a."network"
from "automation_replays" r join "automations" a on a."id" = r."automation_id"
where r."id" = ? and r."status" = '${replayStatus.running}'`;

/** The replay while it runs; null once it ended or was deleted. */
export async function readRunningReplay(em: EntityManager, replayId: string): Promise<RunningReplayRow | null> {
  const [row] = await em.execute<RunningReplayRow[]>(readSql, [replayId]);
  return row ?? null;
}

const advanceSql = `update "automation_replays" set "next_block" = ?, "matches" = "matches" + ?,
  "runs_started" = "runs_started" + ?, "listed" = "listed" || ?::jsonb, "updated_at" = now(),
  "status" = case when ? then '${replayStatus.completed}' else "status" end,
  "completed_at" = case when ? then now() else "completed_at" end
where "id" = ? and "next_block" = ? and "status" = '${replayStatus.running}'`;

/** What a page of a replay adds to its row. */
interface Progress {
  next: number;
  done: boolean;
  matches: number;
  runsStarted: number;
  listed: ListedMatch[];
}

/** Moves the running replay on from `from`; false when it no longer stood there. */
export async function advanceReplayRow(em: EntityManager, replayId: string, from: number, progress: Progress) {
  const { next, done, matches, runsStarted, listed } = progress;
  const params = [next, matches, runsStarted, jsonbParam(listed), done, done, replayId, from];
  // A dry run's matches carry what the chain emitted: sent bound (bound-statement.ts).
  const result = await executeBound(em, advanceSql, params);
  return result.affectedRows === 1;
}

const failSql = `update "automation_replays" set "status" = '${replayStatus.failed}', "error" = ?, "completed_at" = now(),
  "updated_at" = now() where "id" = ? and "status" = '${replayStatus.running}'`;

/** Ends a replay that cannot go on, with why; one that already ended keeps its outcome. */
export async function failReplay(em: EntityManager, replayId: string, message: string) {
  await em.execute(failSql, [jsonbParam({ name: replayErrorName.ReplayFailed, message }), replayId], 'run');
}

/** A running replay as the recovery sweep pages through them. */
interface SweptReplayRow {
  id: string;
  cursor_at: string;
  account_id: string;
  automation_id: string;
}

const pageSql = `select "id", "created_at"::text as "cursor_at", "account_id", "automation_id"
from "automation_replays"
where "status" = '${replayStatus.running}' and "created_at" < now() - make_interval(secs => ?)
  and ("created_at", "id") > (cast(? as timestamptz), ?)
order by "created_at", "id" limit ?`;

/** Up to `limit` replays running since before the grace, after the keyset (`at`, `id`), in the order of their index. */
export const runningReplaysPage = sweepPage<SweptReplayRow>(pageSql);
