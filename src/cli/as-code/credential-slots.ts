import type { CredentialKind } from '../../automations/credentials/credentials.ts';

/**
 * A place of an automation, as YAML or the API holds it, where a credential sits (the places
 * src/automations/credentials/credentials.ts names, found on values not yet validated): `path` as that module
 * spells it (`notify.0.channel.url`), and the object and key that hold it.
 */
interface CredentialSlot {
  path: string;
  kind: CredentialKind;
  holder: Record<string, unknown>;
  key: string;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Every credential place of an automation's trigger, action and notify rules. */
export function credentialSlots(automation: Record<string, unknown>): CredentialSlot[] {
  const slots: CredentialSlot[] = [];
  const target = (holder: Record<string, unknown>, at: string) => {
    if ('url' in holder) slots.push({ path: `${at}.url`, kind: 'url', holder, key: 'url' });
    const { headers } = holder;
    if (!isRecord(headers)) return;
    for (const name of Object.keys(headers))
      slots.push({ path: `${at}.headers.${name}`, kind: 'header', holder: headers, key: name });
  };
  const { trigger, action, notify } = automation;
  if (isRecord(trigger) && trigger.type === 'price' && isRecord(trigger.source) && 'url' in trigger.source)
    slots.push({ path: 'trigger.source.url', kind: 'url', holder: trigger.source, key: 'url' });
  if (isRecord(action) && action.type === 'webhook') target(action, 'action');
  if (Array.isArray(notify))
    notify.forEach((rule, index) => {
      if (isRecord(rule) && isRecord(rule.channel) && rule.channel.type !== 'telegram')
        target(rule.channel, `notify.${index}.channel`);
    });
  return slots;
}
