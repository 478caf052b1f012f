import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../../errors.ts';
import type { Automation } from '../model/automation.entity.ts';
import type { Trigger } from '../model/trigger.schemas.ts';
import type { WebhookTrigger } from '../model/webhook-trigger.schemas.ts';
import { deleteHook, hookPathOf, insertHook, setHookToken } from './hook.sql.ts';
import { hashToken, hookUrl, newHookPath, newHookToken } from './hook-credentials.ts';

/**
 * A webhook automation's hook as the automation is created or changed: its path issued once and
 * kept, stored in the trigger as `url` (what GET answers); its token issued when token auth begins
 * and answered that once. `url` and `token` sent by a client are never taken.
 */

/** The trigger as stored: the client's, without the service's fields. */
const storedTrigger = (trigger: WebhookTrigger, path: string): WebhookTrigger => {
  const stored = { ...trigger, url: hookUrl(path) };
  delete stored.token;
  return stored;
};

/** The hook of a new automation, inserted by the caller's transaction with the automation's row. */
export function newHook(automation: Automation) {
  const { trigger } = automation;
  if (trigger.type !== 'webhook') return undefined;
  const path = newHookPath();
  const token = trigger.auth.type === 'token' ? newHookToken() : undefined;
  automation.trigger = storedTrigger(trigger, path);
  const tokenHash = token === undefined ? null : hashToken(token);
  // True once inserted: the automation's insert answers whether it was made (automation.sql.ts).
  const insert = async (em: EntityManager) => {
    await insertHook(em, { automationId: automation.id, accountId: automation.account.id, path, tokenHash });
    return true;
  };
  return { insert, token };
}

/**
 * Replaces the automation's trigger, as an update does, and its hook with it: a webhook keeps its
 * path, gets one if it had none, and a token when token auth begins; a trigger that is no longer a
 * webhook loses its hook. Answers the token issued, if any.
 */
export async function replaceTrigger(em: EntityManager, automation: Automation, trigger: Trigger) {
  const previous = automation.trigger;
  Object.assign(automation, { trigger, triggerType: trigger.type });
  if (trigger.type !== 'webhook') {
    if (previous.type === 'webhook') await deleteHook(em, automation.id);
    return undefined;
  }
  const tokenBegins = trigger.auth.type === 'token' && !(previous.type === 'webhook' && previous.auth.type === 'token');
  const token = tokenBegins ? newHookToken() : undefined;
  const tokenHash = token === undefined ? null : hashToken(token);
  let path = await hookPathOf(em, automation.id);
  if (path === undefined) {
    path = newHookPath();
    await insertHook(em, { automationId: automation.id, accountId: automation.account.id, path, tokenHash });
  } else if (token !== undefined || trigger.auth.type === 'hmac') {
    // Signed requests take no token: one left from token auth would still open the hook.
    await setHookToken(em, automation.id, tokenHash);
  }
  automation.trigger = storedTrigger(trigger, path);
  return token;
}

/**
 * A new token for a token-auth webhook: the old one is refused from the next request on. Answers
 * the hook's URL and the token, shown this once.
 */
export async function rotateHookToken(em: EntityManager, automation: Automation) {
  const { trigger } = automation;
  const path = await hookPathOf(em, automation.id);
  if (trigger.type !== 'webhook' || trigger.auth.type !== 'token' || path === undefined) {
    throw new AppError('conflict', 'Only a webhook automation with token auth has a hook token.');
  }
  const token = newHookToken();
  await setHookToken(em, automation.id, hashToken(token));
  return { url: hookUrl(path), token };
}
