import { LockMode, type EntityManager } from '@mikro-orm/postgresql';
import { findSigner } from '../../signers/default-signer.ts';
import { Automation } from '../model/automation.entity.ts';
import { gasText, gasUnits } from '../../chain/gas-amount.ts';
import { AutomationRun } from '../model/run.entity.ts';
import { networkOf, type NetworkNodes } from '../../chain/network-of.ts';
import { notificationsOf } from './notification.sql.ts';
import { recordNotifications, rulesFor } from './record.ts';

/**
 * After a contract run: reads the signer's GAS on the run's network and records a low_gas notification for each rule
 * whose threshold the balance has just gone under (once per crossing: a rule stays told until a
 * check finds the balance back at or over it). Returns the notifications of this check, also when
 * a repeated check found them already recorded.
 */
export async function checkSignerGas(
  deps: { em: EntityManager; networks: NetworkNodes },
  runId: string,
): Promise<string[]> {
  const run = await deps.em.findOne(AutomationRun, { id: runId });
  if (!run) return [];
  const signer = await findSigner(deps.em, run.accountId);
  if (!signer) return [];
  const balance = BigInt((await networkOf(deps.networks, run.network).getBalance(signer.address, 'GAS')).amount);
  const eventKey = `low_gas:${run.id}`;
  await deps.em.transactional(async (tx) => {
    const automation = await tx.findOne(
      Automation,
      { id: run.automation.id },
      { lockMode: LockMode.PESSIMISTIC_WRITE },
    );
    if (!automation) return;
    const below = rulesFor(automation, 'low_gas').filter(
      (rule) => balance < gasUnits(automation.notify[rule]!.belowGas!),
    );
    for (const rule of below.filter((index) => !automation.gasBelow.includes(index))) {
      const gas = { address: signer.address, balance: gasText(balance), below: automation.notify[rule]!.belowGas! };
      await recordNotifications(tx, automation, [rule], eventKey, { event: 'low_gas', run, gas });
    }
    automation.gasBelow = below;
  });
  return notificationsOf(deps.em, run.automation.id, eventKey);
}
