import type { EntityManager } from '@mikro-orm/postgresql';
import type { MasterKeys } from '../crypto/envelope.ts';
import { revealCredentials } from '../automations/credentials/credential-store.ts';
import { mapTrigger } from '../automations/credentials/credentials.ts';
import { priceSourceKey } from '../automations/price/price-source-key.ts';
import { activePriceSources, nameSource, unnamedPriceRows } from '../automations/price/automation-price.sql.ts';
import type { TriggerControl } from '../automations/triggers.control.ts';
import { callsInFlight, pageSize } from './keyset.ts';
import { mapBounded } from './workflow-state.ts';

/**
 * One poller runs for each price source active automations read, whatever Temporal holds: the
 * sources of rows written before sources were named are named first (a custom source's URL is
 * unsealed for it), and the pollers of one automation each that earlier versions left running
 * are stopped. An automation whose source cannot be named is told, and tried again next pass.
 */
export async function convergePricePollers(
  em: EntityManager,
  control: TriggerControl,
  masterKeys: MasterKeys,
  warn: (automationId: string, error: string) => void,
) {
  for (let after = ''; ;) {
    const rows = await unnamedPriceRows(em, after, pageSize);
    for (const row of rows) {
      try {
        const { source } = await revealCredentials(em, masterKeys, row.id, (replace) =>
          mapTrigger(row.trigger, replace),
        );
        const url = source && 'url' in source ? source.url : undefined;
        await nameSource(em, row.id, row.trigger, priceSourceKey(row.trigger, row.account_id, url));
      } catch (error) {
        warn(row.id, String(error));
      }
    }
    if (rows.length < pageSize) break;
    after = rows.at(-1)!.id;
  }
  await mapBounded(await activePriceSources(em), callsInFlight, (source) => control.pricePollers.ensure(source));
  await control.pricePollers.stopRetired();
}
