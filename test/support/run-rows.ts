import type { MikroORM } from '@mikro-orm/postgresql';
import { Automation } from '../../src/automations/model/automation.entity.ts';
import { recordRuns } from '../../src/automations/runs/fires.ts';

let fires = 0;

/**
 * An automation of `action` stored straight in the database (active, yearly), with one run fired
 * by hand and not begun: for tests of a run's steps.
 */
export async function storeFiredRun(orm: MikroORM, accountId: string, action: Automation['action']): Promise<string> {
  const em = orm.em.fork();
  const automation = em.create(Automation, {
    account: accountId,
    name: `fired ${++fires}`,
    status: 'active',
    triggerType: 'schedule',
    trigger: { type: 'schedule', cron: '@yearly' },
    action,
    functionId: action.type === 'function' ? action.functionId : null,
    watchFromBlock: null,
    errorDetails: null,
    notify: [],
    gasBelow: [],
    network: 'default',
  });
  await em.flush();
  const [run] = await recordRuns(em, [{ automation, fireKey: `manual:${fires}`, payload: { type: 'manual' } }]);
  return run!.runId;
}
