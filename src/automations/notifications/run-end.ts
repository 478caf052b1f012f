import type { EntityManager } from '@mikro-orm/postgresql';
import { sendsTransactions } from '../model/action.schemas.ts';
import { AutomationRun } from '../model/run.entity.ts';
import { failureStreakRow } from './run-streak.sql.ts';
import { runsWithEndRules } from './run-end.sql.ts';
import { recordNotifications } from './record.ts';
import { lookBack, runEndEvents } from './streaks.ts';
import { runStatus } from '../../shared/outcomes.ts';

interface RunEndNotices {
  /** Notifications to deliver, each by its own workflow. */
  notifications: string[];
  /** The automation pays with its signer and watches its balance: check it now. */
  checkGas: boolean;
}

const none: RunEndNotices = { notifications: [], checkGas: false };

async function streakOf(em: EntityManager, runId: string, count: number) {
  const row = await failureStreakRow(em, runId, count + 1);
  return { beganAfter: row!.began_after || 'start', before: row!.before, length: row!.length };
}

/**
 * Records the failure and recovery notifications a run's end calls for (derived from the runs'
 * statuses alone, so a repeated step decides the same), and says whether to check the signer's gas.
 */
export async function noteRunEnd(em: EntityManager, runId: string): Promise<RunEndNotices> {
  const run = await em.findOne(AutomationRun, { id: runId }, { populate: ['automation'] });
  if (!run || run.status === runStatus.running) return none;
  const { automation } = run;
  const rules = automation.notify;
  const checkGas = sendsTransactions(automation.action) && rules.some((rule) => rule.on.includes('low_gas'));
  if (!rules.some((rule) => rule.on.includes(runStatus.failure) || rule.on.includes('recovery'))) {
    return { notifications: [], checkGas };
  }
  const streak = await streakOf(em, run.id, lookBack(rules));
  // Each rule is told with its own streak; the ids answered are those of the whole cause. A
  // failure is told once per streak, whichever of its runs saw it reach the threshold.
  const notifications = new Set<string>();
  for (const { rule, event } of runEndEvents(rules, run.status, streak)) {
    const failures = event === runStatus.failure ? (rules[rule]!.afterFailures ?? 1) : undefined;
    const cause = { event, run, ...(failures === undefined ? {} : { failures }) };
    const eventKey = event === runStatus.failure ? `failure:after:${streak.beganAfter}` : `${event}:${run.id}`;
    for (const id of await recordNotifications(em, automation, [rule], eventKey, cause)) {
      notifications.add(id);
    }
  }
  return { notifications: [...notifications], checkGas };
}

/**
 * noteRunEnd for runs recorded ended together (the runs of a block or a poll quarantined at once):
 * only the runs whose automation is told of failures or recoveries are read, found in one
 * statement. Their gas is not checked: an ended run that never ran sent nothing.
 */
export async function noteRunEnds(em: EntityManager, runIds: string[]): Promise<void> {
  for (const runId of await runsWithEndRules(em, runIds)) await noteRunEnd(em, runId);
}
