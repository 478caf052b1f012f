import { AppError } from '../errors.ts';
import type { Automation } from './model/automation.entity.ts';

/** What a request may say of an automation's network (issue 45), checked before anything is stored. */

/** A network the request names that the deployment lacks: a 400 naming `network`, listing those it has. */
export function assertNetworkConfigured(configured: readonly { name: string }[], network: string) {
  if (configured.some(({ name }) => name === network)) return;
  const names = configured.map(({ name }) => `"${name}"`).join(', ');
  throw new AppError(
    'invalid_request',
    `No network "${network}" is configured; the networks configured are ${names}.`,
    {
      field: 'network',
    },
  );
}

/**
 * An automation's network is fixed at create: its blocks, its follower's cursor and its GAS spend
 * are that network's own, and moving it would leave its fire keys and budget meaningless there.
 * The same value may be sent again (a whole object sent back); another is refused.
 */
export function assertSameNetwork(automation: Automation, network: string | undefined) {
  if (network === undefined || network === automation.network) return;
  throw new AppError(
    'invalid_request',
    `An automation's network cannot change (this one's is "${automation.network}"): its blocks, cursor and GAS spend are that network's own. Create another automation on "${network}".`,
    { field: 'network' },
  );
}
