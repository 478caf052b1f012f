import type { Trigger } from '../model/trigger.schemas.ts';
import type { Action } from '../model/action.schemas.ts';
import type { Channel, NotifyRule } from '../model/notify.schemas.ts';

/**
 * The values of an automation that are credentials: every URL it posts to or reads a price from
 * (Slack's and Discord's URLs are bearer tokens, a price source's often holds an API key) and
 * every header value of a webhook (a receiver's token). They are stored sealed
 * (src/automations/credentials/credential-store.ts) and shown masked.
 */
export type CredentialKind = 'url' | 'header';

export interface Credential {
  /** Where it sits, as a request's `details.field` names it: `notify.0.channel.url`. */
  path: string;
  kind: CredentialKind;
  value: string;
}

/** The parts of an automation that may hold credentials; a part left out is left alone. */
export interface CredentialParts {
  trigger?: Trigger;
  action?: Action;
  notify?: NotifyRule[];
}

type Replace = (credential: Credential) => string;

/** A webhook's URL and header values, `at` its place (`action`, `notify.<rule>.channel`). */
export function mapTarget<T extends { url: string; headers?: Record<string, string> }>(
  target: T,
  at: string,
  replace: Replace,
): T {
  const url = replace({ path: `${at}.url`, kind: 'url', value: target.url });
  if (!target.headers) return { ...target, url };
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(target.headers)) {
    headers[name] = replace({ path: `${at}.headers.${name}`, kind: 'header', value });
  }
  return { ...target, url, headers };
}

export function mapTrigger<T extends Trigger>(trigger: T, replace: Replace): T {
  if (trigger.type !== 'price' || !trigger.source || !('url' in trigger.source)) return trigger;
  const url = replace({ path: 'trigger.source.url', kind: 'url', value: trigger.source.url });
  return { ...trigger, source: { ...trigger.source, url } };
}

function mapAction(action: Action, replace: Replace): Action {
  return action.type === 'webhook' ? mapTarget(action, 'action', replace) : action;
}

/** A rule's channel, `at` its place (`notify.<rule>.channel`). */
export function mapChannel(channel: Channel, at: string, replace: Replace): Channel {
  return channel.type === 'telegram' ? channel : mapTarget(channel, at, replace);
}

function mapNotify(notify: NotifyRule[], replace: Replace): NotifyRule[] {
  return notify.map((rule, index) => ({
    ...rule,
    channel: mapChannel(rule.channel, `notify.${index}.channel`, replace),
  }));
}

/** The parts given, each credential replaced by what `replace` makes of it. */
export function mapCredentials<T extends CredentialParts>(parts: T, replace: Replace): T {
  return {
    ...parts,
    ...(parts.trigger ? { trigger: mapTrigger(parts.trigger, replace) } : {}),
    ...(parts.action ? { action: mapAction(parts.action, replace) } : {}),
    ...(parts.notify ? { notify: mapNotify(parts.notify, replace) } : {}),
  };
}

/** Every credential of the parts given. */
export function credentialsOf(parts: CredentialParts): Credential[] {
  const found: Credential[] = [];
  mapCredentials(parts, (credential) => {
    found.push(credential);
    return credential.value;
  });
  return found;
}

const hidden = '****';

/**
 * What is shown of a credential. A header value: `****`. A URL: its scheme, host and port, then
 * the first characters of its path (at most 10, and at most a third of the path, so that a short
 * path is not shown whole), then `…/****`; its user, query and fragment never:
 * `https://hooks.slack.com/services/T…/****`.
 */
export function maskOf(kind: CredentialKind, value: string): string {
  if (kind === 'header') return hidden;
  const url = new URL(value);
  const path = url.pathname.slice(1);
  const shown = path.slice(0, Math.min(10, Math.floor(path.length / 3)));
  return `${url.protocol}//${url.host}/${shown ? `${shown}…/` : ''}${hidden}`;
}

/**
 * The place of the URL a header value is sent to (`action.url` for `action.headers.X-Token`), or
 * undefined for a credential that is no header.
 */
export function destinationOf(credential: Credential): string | undefined {
  if (credential.kind !== 'header') return undefined;
  return `${credential.path.slice(0, credential.path.indexOf('.headers.'))}.url`;
}

/** A value sent that ends as a mask does stands for the value stored at its place. */
export const isMasked = (value: string) => value.endsWith(hidden);

/** The parts as they are shown: every credential masked. */
export const masked = <T extends CredentialParts>(parts: T): T =>
  mapCredentials(parts, ({ kind, value }) => maskOf(kind, value));
