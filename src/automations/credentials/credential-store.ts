/**
 * credentials/: the values of an automation that are secrets (URLs it posts to or reads a price
 * from, header values), named in credentials.ts, sealed in rows of their own here and masked in
 * the automation's columns.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { sealedCredentials } from './credential.sql.ts';
import { invalidRequest } from '../../errors.ts';
import { assertMasterHeld, open, seal, type MasterKeys, type Sealed } from '../../crypto/envelope.ts';
import { sealContexts } from '../../crypto/seal-contexts.ts';
import type { Automation } from '../model/automation.entity.ts';
import type { SealedCredential } from '../model/automation.sql.ts';
import { AutomationCredential } from './credential.entity.ts';
import {
  credentialsOf,
  destinationOf,
  isMasked,
  mapCredentials,
  maskOf,
  type Credential,
  type CredentialParts,
} from './credentials.ts';

/** 'trigger', 'action' or 'notify': the part of the automation a credential's path is in. */
const partOf = (path: string) => path.slice(0, path.indexOf('.')) as keyof CredentialParts;

/**
 * Seals the credentials of the parts a create or an update sends, and leaves only their masks in
 * the automation's columns. A value sent as a mask (`isMasked`) keeps the value stored at its
 * place if it is that value's mask, and is refused otherwise (400 naming the field); a header's
 * only while its URL keeps the stored URL's origin (keptValue). The
 * credentials of a part not sent are kept; those a sent part no longer holds are deleted. Stored
 * in the caller's unit of work, with the row itself; the clear values never reach a column.
 * Returns the clear value of every credential of the parts sent, by path (a price source's key is
 * made of its URL).
 */
export async function sealCredentials(
  em: EntityManager,
  masterKeys: MasterKeys,
  automation: Automation,
  sent: CredentialParts,
): Promise<Map<string, string>> {
  const parts = partsSent(sent);
  if (parts.length === 0) return new Map();
  const stored = await em.find(AutomationCredential, { automation: automation.id });
  const byPath = new Map(stored.map((row) => [row.path, row]));
  const { clear, sealed } = sealSent(masterKeys, automation, sent, byPath);
  for (const { path, ...values } of sealed) {
    const row = byPath.get(path);
    if (row) Object.assign(row, values);
    else em.create(AutomationCredential, { automation, path, ...values });
  }
  for (const row of stored) {
    if (parts.includes(partOf(row.path)) && !clear.has(row.path)) em.remove(row);
  }
  return clear;
}

/**
 * sealCredentials for an automation being created, which has none stored: nothing is read, and
 * its sealed credentials are answered for its insert (insertAutomation), not stored here (a
 * create is one statement, issue 34). A masked value is refused.
 */
export function sealNewCredentials(masterKeys: MasterKeys, automation: Automation, sent: CredentialParts) {
  return sealSent(masterKeys, automation, sent, new Map());
}

const partsSent = (sent: CredentialParts) =>
  (['trigger', 'action', 'notify'] as const).filter((part) => sent[part] !== undefined);

/** The credentials of the parts sent, sealed (those sent as masks: kept, unsealed again), and their masks put in the automation. */
function sealSent(
  masterKeys: MasterKeys,
  automation: Automation,
  sent: CredentialParts,
  byPath: Map<string, Sealed>,
): { clear: Map<string, string>; sealed: SealedCredential[] } {
  const clear = new Map<string, string>();
  const sealed: SealedCredential[] = [];
  const storedAt = (path: string | undefined) => {
    if (path === undefined) return undefined;
    const row = byPath.get(path);
    return row && open(row, sealContexts.credential(automation.id, path), masterKeys);
  };
  for (const credential of credentialsOf(sent)) {
    if (isMasked(credential.value)) {
      const destination = destinationOf(credential);
      const sentTo = destination === undefined ? undefined : clear.get(destination);
      const kept = keptValue(credential, storedAt(credential.path), sentTo, storedAt(destination));
      clear.set(credential.path, kept);
      continue;
    }
    const context = sealContexts.credential(automation.id, credential.path);
    clear.set(credential.path, credential.value);
    sealed.push({ path: credential.path, ...seal(credential.value, context, masterKeys) });
  }
  const shown = mapCredentials(sent, ({ kind, path }) => maskOf(kind, clear.get(path)!));
  for (const part of partsSent(sent)) Object.assign(automation, { [part]: shown[part] });
  return { clear, sealed };
}

/**
 * The stored value a mask sent stands for. Every header masks alike (`****`), so a header's mask
 * alone would let whoever may write the automation move its token to a host of their own: it keeps
 * the stored value only while the URL it is sent to (`destination`, clear; a URL's own mask keeps
 * its origin) has the origin of the URL stored with it (`storedDestination`).
 */
function keptValue(
  credential: Credential,
  stored: string | undefined,
  destination?: string,
  storedDestination?: string,
): string {
  if (stored === undefined || maskOf(credential.kind, stored) !== credential.value) {
    throw invalidRequest(
      `"${credential.path}" is masked, but not as the value stored there: send the value itself.`,
      credential.path,
    );
  }
  if (credential.kind === 'header' && !sameOrigin(destination, storedDestination)) {
    throw invalidRequest(
      `"${credential.path}" is masked, but its URL's origin changed: send the value itself to send it to the new origin.`,
      credential.path,
    );
  }
  return stored;
}

/** Scheme, host and port (`URL.origin` is "null" for every URL of a scheme it does not know). */
const originOf = (url: string) => {
  const { protocol, host } = new URL(url);
  return `${protocol}//${host}`;
};

const sameOrigin = (a: string | undefined, b: string | undefined) =>
  a !== undefined && b !== undefined && originOf(a) === originOf(b);

/** A credential the request to send names is no longer stored as it was shown (an update won). */
class CredentialChangedError extends Error {
  constructor(path: string) {
    super(`"${path}" was changed or removed before it was sent`);
    this.name = 'CredentialChangedError';
  }
}

type Walk<T> = (replace: (credential: Credential) => string) => T;

/**
 * What `walk` makes, each credential it meets (shown masked) replaced by its value, unsealed only
 * now, for a request about to be sent: `revealCredentials(em, keys, id, (r) => mapAction(action, r))`.
 * Throws CredentialChangedError when the stored value no longer has the mask met (an update changed
 * it since the mask was copied, as a notification copies its channel).
 */
export async function revealCredentials<T>(
  em: EntityManager,
  masterKeys: MasterKeys,
  automationId: string,
  walk: Walk<T>,
): Promise<T> {
  const wanted: Credential[] = [];
  walk((credential) => (wanted.push(credential), credential.value));
  if (wanted.length === 0) return walk(({ value }) => value);
  return revealSealed(await sealedCredentials(em, automationId), masterKeys, automationId, walk);
}

/** As revealCredentials, from the automation's sealed credentials already read (`byPath`). */
export function revealSealed<T>(
  byPath: Map<string, Sealed>,
  masterKeys: MasterKeys,
  automationId: string,
  walk: Walk<T>,
): T {
  return walk(({ path, kind, value: mask }) => {
    const sealed = byPath.get(path);
    const value = sealed && open(sealed, sealContexts.credential(automationId, path), masterKeys);
    if (value === undefined || maskOf(kind, value) !== mask) throw new CredentialChangedError(path);
    return value;
  });
}

/**
 * Throws as revealSealed would for a credential `walk` meets that is not stored, or is wrapped by a
 * master key not held, without unsealing any: for an automation whose values are known otherwise
 * (a price source's URL, unsealed for another automation of the source). Whether a stored value
 * still has the mask met is not known without unsealing it: the caller says why it need not be.
 */
export function assertSealed(byPath: Map<string, Sealed>, masterKeys: MasterKeys, walk: Walk<unknown>) {
  walk(({ path, value }) => {
    const sealed = byPath.get(path);
    if (sealed === undefined) throw new CredentialChangedError(path);
    assertMasterHeld(sealed, masterKeys);
    return value;
  });
}
