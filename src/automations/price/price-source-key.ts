import { createHash } from 'node:crypto';
import type { PriceTrigger } from '../model/trigger.schemas.ts';
import { resolvePriceSource } from './price-source.ts';

/**
 * The source a price trigger reads, as one poller serves it: a preset's `(preset, asset,
 * currency)` (the deployment's default preset named as such, so that it follows the
 * configuration), or a custom source's URL as filled in, the account's own (it may carry the
 * account's API key). Hashed: the key names a Temporal workflow, and a custom URL is a sealed
 * credential that must reach neither workflow ids nor histories. `url`: the custom source's URL
 * in clear.
 */
export function priceSourceKey(trigger: PriceTrigger, accountId: string, url?: string): string {
  const source = trigger.source;
  const named =
    source && 'url' in source
      ? [
          'url',
          accountId,
          resolvePriceSource({ ...source, url: url ?? source.url }, trigger.asset, trigger.currency).url,
        ]
      : ['preset', source?.preset ?? null, trigger.asset, trigger.currency];
  return createHash('sha256').update(JSON.stringify(named)).digest('hex').slice(0, 32);
}

/** The poller of one source: its workflow id. */
export const pricePollerId = (source: string) => `price_${source}`;
