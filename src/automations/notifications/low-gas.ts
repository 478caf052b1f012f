import { LockMode, type EntityManager } from '@mikro-orm/postgresql';
import { signerOrDefault } from '../../signers/signer-or-default.ts';
import { Automation } from '../model/automation.entity.ts';
import { gasText, gasUnits } from '../../chain/gas-amount.ts';
import { AutomationRun } from '../model/run.entity.ts';
import { networkOf, type NetworkNodes } from '../../chain/network-of.ts';
import { notificationsOf } from './notification.sql.ts';
import { recordNotifications, rulesFor } from './record.ts';

/**
 * After a contract run: reads the GAS of the run's signer on the run's network and records a low_gas notification for each rule
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
  const signer = await signerOrDefault(deps.em, run.accountId, run.signerId ?? (await namedSigner(deps.em, run)));
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
      const threshold = automation.notify[rule]!.belowGas!;
      const gas = { signer: signer.name, address: signer.address, balance: gasText(balance), below: threshold };
      await recordNotifications(tx, automation, [rule], eventKey, { event: 'low_gas', run, gas });
    }
    automation.gasBelow = below;
  });
  return notificationsOf(deps.em, run.automation.id, eventKey);
}

/**
 * The signer the run's automation names, for a run that ended before it prepared a transaction
 * (the signer is recorded when it does). Read in a fork: the automation is locked and changed below.
 */
async function namedSigner(em: EntityManager, run: AutomationRun): Promise<string | null> {
  const automation = await em.fork().findOne(Automation, { id: run.automation.id }, { fields: ['signerId'] });
  return automation?.signerId ?? null;
}
