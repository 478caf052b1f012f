import { credentialsOf, mapCredentials, maskOf } from '../../automations/credentials/credentials.ts';
import type { Action } from '../../automations/model/action.schemas.ts';
import type { AccountState, RemoteAutomation, RemoteFunction } from './account-state.ts';
import { flatten } from './flatten.ts';
import { signerNamesById, withSignerName } from './signer-names.ts';
import type {
  DesiredAutomation,
  DesiredFunction,
  DesiredSecret,
  DesiredSigner,
  FunctionFields,
  NamedAction,
  NeoflowFile,
} from './neoflow-file.ts';

export type ResourceKind = 'secret' | 'signer' | 'function' | 'automation';

/** One field a change sets, as the plan shows it: values as JSON, write-only ones never. */
export interface FieldChange {
  path: string;
  before?: string;
  after?: string;
}

export interface Change {
  kind: ResourceKind;
  op: 'create' | 'update' | 'delete';
  name: string;
  /** The resource's id, for an update or a delete. */
  id?: string;
  fields: FieldChange[];
  /**
   * The request's body of a create or an update (only the fields that change). Holds the values
   * of secrets and credentials: it is sent, never shown. A function action names its function
   * (`function`), resolved to its id when the change is applied.
   */
  body?: Record<string, unknown>;
}

export interface Plan {
  account: { id: string; name: string };
  /** In the order they are applied: creates and updates of secrets, functions, automations, then deletes in reverse. */
  changes: Change[];
  /** What the account holds that the file does not, left alone without --prune. */
  leftAlone: { kind: ResourceKind; name: string }[];
}

interface PlanOptions {
  /** Delete what the account holds and the file does not. */
  prune: boolean;
  /** Send the write-only values the file gives (secrets, credentials) even where nothing shows a change. */
  sendSecrets: boolean;
}

const render = (value: unknown) => JSON.stringify(value);
const writeOnly = (label: string) => `(write-only, from ${label})`;

/**
 * What applying `file` to the account would do, resource by resource (matched by name) and field
 * by field. Refuses, listing every reason, a file that cannot be applied as it stands.
 */
export function planChanges(file: NeoflowFile, state: AccountState, options: PlanOptions): Plan {
  const problems: string[] = [];
  // What the account will hold once applied: the file's, and without --prune what it holds already.
  const secretNames = new Set([
    ...file.secrets.map(({ name }) => name),
    ...(options.prune ? [] : state.secrets.map(({ name }) => name)),
  ]);
  const functionNames = new Set([
    ...file.functions.map(({ name }) => name),
    ...(options.prune ? [] : state.functions.map(({ name }) => name)),
  ]);
  const nowhere = options.prune
    ? 'the file does not hold (and --prune deletes)'
    : 'neither the file nor the account holds';
  const needSecret = (owner: string, name: string) => {
    if (!secretNames.has(name)) problems.push(`${owner} names the secret ${name}, which ${nowhere}`);
  };
  for (const fn of file.functions) fn.fields.secrets.forEach((name) => needSecret(`function ${fn.name}`, name));
  const signerNames = signerNamesById(state.signers ?? []);
  // Signers are never deleted by apply: a deleted key is gone for good.
  const knownSigners = new Set([
    ...file.signers.map(({ name }) => name),
    ...signerNames.keys(),
    ...signerNames.values(),
  ]);
  for (const automation of file.automations) {
    secretsNamedBy(automation).forEach((name) => needSecret(`automation ${automation.name}`, name));
    if (automation.action.type === 'function' && !functionNames.has(automation.action.function))
      problems.push(`automation ${automation.name} runs the function ${automation.action.function}, which ${nowhere}`);
    const { signer } = withSignerName(automation.action, signerNames) as { signer?: string };
    // A key that may not read signers leaves the check to the API, which answers a 400 naming action.signer.
    if (signer !== undefined && state.signers !== null && !knownSigners.has(signer))
      problems.push(`automation ${automation.name} signs with ${signer}, which neither the file nor the account holds`);
  }
  const functionNamesById = new Map(state.functions.map(({ id, name }) => [id, name]));
  const upserts: Change[] = [
    ...file.secrets.flatMap((secret) => secretChange(secret, state, options, problems)),
    ...file.signers.flatMap((signer) => signerChange(signer, state, problems)),
    ...file.functions.flatMap((fn) =>
      functionChange(
        fn,
        state.functions.find(({ name }) => name === fn.name),
      ),
    ),
    ...file.automations.flatMap((automation) =>
      automationChange(automation, state.automations, { functionNamesById, signerNames }, options, problems),
    ),
  ];
  const absent = <T extends { name: string }>(listed: T[], wanted: { name: string }[]) => {
    const names = new Set(wanted.map(({ name }) => name));
    return listed.filter(({ name }) => !names.has(name));
  };
  const extra = {
    automation: absent(state.automations, file.automations),
    function: absent(state.functions, file.functions),
    secret: absent(state.secrets, file.secrets),
  };
  const deletes: Change[] = [];
  const leftAlone: Plan['leftAlone'] = [];
  for (const kind of ['automation', 'function', 'secret'] as const) {
    for (const { id, name } of extra[kind]) {
      if (options.prune) deletes.push({ kind, op: 'delete', name, id, fields: [] });
      else leftAlone.push({ kind, name });
    }
  }
  if (problems.length > 0) throw new Error(`the file cannot be applied:\n  ${problems.join('\n  ')}`);
  return { account: state.account, changes: [...upserts, ...deletes], leftAlone };
}

/** The secrets an automation names: its webhook's signing secret, its channels' secrets. */
function secretsNamedBy(automation: DesiredAutomation): string[] {
  const named = automation.action.type === 'webhook' ? [automation.action.signingSecret] : [];
  for (const { channel } of automation.notify) {
    if (channel.type === 'webhook') named.push(channel.signingSecret);
    if (channel.type === 'telegram') named.push(channel.botTokenSecret);
  }
  return named;
}

function secretChange(secret: DesiredSecret, state: AccountState, options: PlanOptions, problems: string[]): Change[] {
  const current = state.secrets.find(({ name }) => name === secret.name);
  const value = secret.value?.value;
  if (!current) {
    if (value === undefined) {
      const source = secret.value
        ? `${secret.value.label} is unset`
        : 'the file gives no value: {env: NAME} or {file: PATH}';
      problems.push(`secret ${secret.name} must be created, and its value is needed: ${source}`);
      return [];
    }
    const fields: FieldChange[] = [{ path: 'value', after: writeOnly(secret.value!.label) }];
    if (secret.description !== null) fields.push({ path: 'description', after: render(secret.description) });
    const body = {
      name: secret.name,
      value,
      ...(secret.description === null ? {} : { description: secret.description }),
    };
    return [{ kind: 'secret', op: 'create', name: secret.name, fields, body }];
  }
  const fields: FieldChange[] = [];
  const body: Record<string, unknown> = {};
  if (secret.description !== current.description) {
    fields.push({ path: 'description', before: render(current.description), after: render(secret.description) });
    body.description = secret.description;
  }
  if (options.sendSecrets && value !== undefined) {
    fields.push({ path: 'value', after: `(write-only, sent again from ${secret.value!.label})` });
    body.value = value;
  }
  return fields.length === 0 ? [] : [{ kind: 'secret', op: 'update', name: secret.name, id: current.id, fields, body }];
}

/**
 * A signer the account lacks is created; one it has by name is left as it is, whatever the file
 * says of it (a signer has no update, and its key cannot change). An imported key is needed only then.
 */
function signerChange(signer: DesiredSigner, state: AccountState, problems: string[]): Change[] {
  if (state.signers === null) {
    problems.push(`signer ${signer.name}: this key may not read the account's signers (it lacks signers:read)`);
    return [];
  }
  if (state.signers.some(({ name }) => name === signer.name)) return [];
  const fields = leafChanges(undefined, signer.body);
  if (signer.body.type !== 'import')
    return [{ kind: 'signer', op: 'create', name: signer.name, fields, body: signer.body }];
  const value = signer.privateKey?.value;
  if (value === undefined) {
    const source = signer.privateKey
      ? `${signer.privateKey.label} is unset`
      : 'the file gives none: {env: NAME} or {file: PATH}';
    problems.push(`signer ${signer.name} must be created, and its private key is needed: ${source}`);
    return [];
  }
  fields.push({ path: 'privateKey', after: writeOnly(signer.privateKey!.label) });
  return [{ kind: 'signer', op: 'create', name: signer.name, fields, body: { ...signer.body, privateKey: value } }];
}

const functionFieldsOf = (fn: RemoteFunction): FunctionFields => ({
  description: fn.description,
  runtime: fn.runtime,
  timeout: fn.timeout,
  environment: fn.environment,
  secrets: fn.secrets,
  tags: fn.tags,
  allowedHosts: fn.allowedHosts,
  code: fn.code,
});

function functionChange(fn: DesiredFunction, current: RemoteFunction | undefined): Change[] {
  const { code, ...rest } = fn.fields;
  if (!current) {
    // A function without a description is created without one (the API's create takes no null).
    const { description, ...created } = fn.fields;
    const shown = { ...rest, description: description ?? undefined };
    const fields = [...leafChanges(undefined, shown), { path: 'code', after: bytes(code) }];
    const body = { name: fn.name, ...created, ...(description === null ? {} : { description }) };
    return [{ kind: 'function', op: 'create', name: fn.name, fields, body }];
  }
  const { code: currentCode, ...currentRest } = functionFieldsOf(current);
  const fields = leafChanges(currentRest, rest);
  if (code !== currentCode)
    fields.push({
      path: 'code',
      before: bytes(currentCode),
      after: `${bytes(code)}, changed from line ${firstDifferentLine(currentCode, code)}`,
    });
  if (fields.length === 0) return [];
  const body = pickChanged(fn.fields as unknown as Record<string, unknown>, fields);
  return [{ kind: 'function', op: 'update', name: fn.name, id: current.id, fields, body }];
}

const bytes = (code: string) => `(${Buffer.byteLength(code, 'utf8')} bytes of code)`;

function firstDifferentLine(before: string, after: string): number {
  const [a, b] = [before.split('\n'), after.split('\n')];
  const index = a.findIndex((line, at) => line !== b[at]);
  return (index === -1 ? a.length : index) + 1;
}

/** The top-level fields of `desired` that a change touches (`trigger` for `trigger.cron`). */
function pickChanged(desired: Record<string, unknown>, fields: FieldChange[]): Record<string, unknown> {
  const top = new Set(fields.map(({ path }) => path.split('.')[0]!));
  return Object.fromEntries([...top].map((field) => [field, desired[field]]));
}

/** The leaves that differ between two values, as the plan shows them. */
function leafChanges(before: unknown, after: unknown, shown = new Map<string, string>()): FieldChange[] {
  const [old, wanted] = [flatten(before), flatten(after)];
  const changes: FieldChange[] = [];
  const show = (path: string, leaf: unknown) => shown.get(path) ?? render(leaf);
  for (const [path, value] of wanted) {
    if (!old.has(path)) changes.push({ path, after: show(path, value) });
    else if (render(old.get(path)) !== render(value))
      changes.push({ path, before: render(old.get(path)), after: show(path, value) });
  }
  for (const [path, value] of old) if (!wanted.has(path)) changes.push({ path, before: render(value) });
  return changes;
}

function automationChange(
  automation: DesiredAutomation,
  listed: RemoteAutomation[],
  names: { functionNamesById: Map<string, string>; signerNames: Map<string, string> },
  options: PlanOptions,
  problems: string[],
): Change[] {
  const named = listed.filter(({ name }) => name === automation.name);
  if (named.length > 1) {
    problems.push(
      `the account holds ${named.length} automations named ${automation.name} (${named.map(({ id }) => id).join(', ')}): ` +
        'rename or delete all but one, since the file matches them by name',
    );
    return [];
  }
  const [current] = named;
  if (current && automation.network !== undefined && automation.network !== current.network) {
    problems.push(
      `automation ${automation.name} is on the network ${current.network} and the file says ${automation.network}: ` +
        "an automation's network never changes (its blocks, cursor and GAS spend are that network's own); " +
        "give the file's automation another name to create it there, and delete this one (--prune)",
    );
    return [];
  }
  const stored = new Map(current ? credentialsOf(current).map(({ path, value }) => [path, value]) : []);
  // Each credential as sent (its value, or the stored one's mask, which keeps it) and as shown.
  const sent = new Map<string, string>();
  const shownMasks = new Map<string, string>();
  const writeOnlyLabels = new Map<string, string>();
  for (const [path, { kind, resolved }] of automation.credentials) {
    const mask = stored.get(path);
    if (resolved.value === undefined) {
      if (mask === undefined) {
        problems.push(
          `automation ${automation.name}: ${path} comes from ${resolved.label}, which is unset, and nothing is stored there to keep`,
        );
        continue;
      }
      sent.set(path, mask);
      shownMasks.set(path, mask);
      continue;
    }
    sent.set(path, resolved.value);
    const resent = options.sendSecrets && mask !== undefined;
    shownMasks.set(path, resent ? `${maskOf(kind, resolved.value)} (sent again)` : maskOf(kind, resolved.value));
    writeOnlyLabels.set(path, resent ? `(write-only, sent again from ${resolved.label})` : writeOnly(resolved.label));
  }
  const parts = { trigger: automation.trigger, action: automation.action as Action, notify: automation.notify };
  const sentParts = mapCredentials(parts, ({ path, value }) => sent.get(path) ?? value);
  const shownParts = mapCredentials(parts, ({ path, value }) => shownMasks.get(path) ?? value);
  // Compared by name, `default` left out on both sides: an action naming none signs with it.
  shownParts.action = withSignerName(shownParts.action, names.signerNames);
  const desired = {
    ...(automation.network === undefined ? {} : { network: automation.network }),
    ...(automation.status === undefined ? {} : { status: automation.status }),
    ...shownParts,
    budget: automation.budget,
  };
  if (!current) {
    const fields = leafChanges(undefined, desired, writeOnlyLabels);
    const body = {
      name: automation.name,
      ...(automation.network === undefined ? {} : { network: automation.network }),
      status: automation.status ?? 'active',
      ...sentParts,
      ...(automation.budget ? { budget: automation.budget } : {}),
    };
    return [{ kind: 'automation', op: 'create', name: automation.name, fields, body }];
  }
  const actual = {
    ...(automation.network === undefined ? {} : { network: current.network }),
    ...(automation.status === undefined ? {} : { status: current.status }),
    trigger: current.trigger,
    action: withSignerName(namedRemoteAction(current.action, names.functionNamesById), names.signerNames),
    notify: current.notify,
    budget: current.budget ?? null,
  };
  // A credential whose mask is unchanged is unchanged as far as anyone can tell, unless sent again.
  const fields = leafChanges(actual, desired, writeOnlyLabels);
  if (fields.length === 0) return [];
  const body = pickChanged({ status: automation.status, ...sentParts, budget: automation.budget }, fields);
  return [{ kind: 'automation', op: 'update', name: automation.name, id: current.id, fields, body }];
}

/** An automation's action as the file names it: its function by name. */
function namedRemoteAction(action: Action, functionNamesById: Map<string, string>): NamedAction {
  if (action.type !== 'function') return action;
  const { functionId, ...rest } = action;
  return { ...rest, function: functionNamesById.get(functionId) ?? `(deleted function ${functionId})` };
}
