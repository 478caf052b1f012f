import type { EntityManager } from '@mikro-orm/postgresql';
import type { Action } from '../model/action.schemas.ts';
import type { EgressPolicy } from '../../egress/egress-policy.ts';
import { invalidRequest } from '../../errors.ts';
import { Secret } from '../../secrets/secret.entity.ts';
import { channelSecret } from './channel-requests.ts';
import type { NotifyRule } from '../model/notify.schemas.ts';

interface Named {
  field: string;
  value: string;
}

/** Every URL a webhook action or a channel posts to, and every secret they name, with its field. */
function targetsOf(action: Action | undefined, notify: NotifyRule[] | undefined) {
  const urls: Named[] = [];
  const secrets: Named[] = [];
  if (action?.type === 'webhook') {
    urls.push({ field: 'action.url', value: action.url });
    secrets.push({ field: 'action.signingSecret', value: action.signingSecret });
  }
  (notify ?? []).forEach(({ channel }, index) => {
    const at = `notify.${index}.channel`;
    if ('url' in channel) urls.push({ field: `${at}.url`, value: channel.url });
    const secret = channelSecret(channel);
    const field = channel.type === 'telegram' ? 'botTokenSecret' : 'signingSecret';
    if (secret) secrets.push({ field: `${at}.${field}`, value: secret });
  });
  return { urls, secrets };
}

/**
 * Refuses, at create and update, a webhook or channel URL that names an address inside the
 * service's network (or `localhost`), and a secret the account does not have. A name that
 * resolves inside is refused at each delivery, where DNS is asked.
 */
export async function assertDeliveryTargets(
  em: EntityManager,
  egress: EgressPolicy,
  accountId: string,
  action: Action | undefined,
  notify: NotifyRule[] | undefined,
) {
  const { urls, secrets } = targetsOf(action, notify);
  for (const { field, value } of urls) {
    const refusal = egress.literalRefusal(new URL(value));
    if (refusal) throw invalidRequest(`"${field}" is refused: ${refusal}.`, field);
  }
  if (secrets.length === 0) return;
  const names = [...new Set(secrets.map((secret) => secret.value))];
  const found = await em.find(Secret, { account: accountId, name: { $in: names } }, { fields: ['name'] });
  const missing = secrets.find((secret) => !found.some((row) => row.name === secret.value));
  if (missing) {
    throw invalidRequest(`"${missing.field}" names no secret of this account: ${missing.value}.`, missing.field);
  }
}
