import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Document } from 'yaml';
import type { FunctionAction } from '../../automations/model/action.schemas.ts';
import { createFunctionBody } from '../../functions/functions.schemas.ts';
import type { AccountState, RemoteAutomation, RemoteFunction } from './account-state.ts';
import { credentialSlots } from './credential-slots.ts';
import { envWords } from './references.ts';
import { exported, signerEntry, signerNamesById, withSignerName } from './signer-names.ts';

interface ExportOptions {
  /** Write each function's code to a file of this folder, named by `codeFile`, rather than inline. */
  codeDir: string | undefined;
}

const byName = <T extends { name: string }>(items: T[]) => [...items].sort((a, b) => a.name.localeCompare(b.name));

/**
 * An account as a neoflow.yaml (docs/automations-as-code.md): its secrets' names, its signers (never
 * an imported key, only where apply would read it), its functions
 * and its automations, without anything the server owns (ids, versions, dates, statistics). No
 * value of a secret or a credential is in it: each is a reference to the environment variable
 * `neoflow apply` reads it from.
 */
export async function exportFile(state: AccountState, options: ExportOptions): Promise<string> {
  const envNames = new Set<string>();
  // Names made of names may meet (`a-b` and `a_b`): each reference gets one of its own.
  const uniqueEnv = (...words: string[]) => {
    const base = envWords(...words);
    let name = base;
    for (let n = 2; envNames.has(name); n++) name = `${base}_${n}`;
    envNames.add(name);
    return { env: name };
  };
  const functionNames = new Map(state.functions.map(({ id, name }) => [id, name]));
  // Without its signers (a key lacking signers:read), an automation keeps its signer's id, valid on this account.
  const signerNames = signerNamesById(state.signers ?? []);
  const signers = byName((state.signers ?? []).filter(exported)).map((signer) => signerEntry(signer, uniqueEnv));
  const automations = byName(state.automations);
  const content = {
    version: 1,
    account: state.account.name,
    secrets: byName(state.secrets).map(({ name, description }) => ({
      name,
      ...(description === null ? {} : { description }),
      value: uniqueEnv('NEOFLOW_SECRET', name),
    })),
    ...(signers.length > 0 ? { signers } : {}),
    functions: await Promise.all(byName(state.functions).map((fn) => functionEntry(fn, options))),
    automations: automations.map((automation) => automationEntry(automation, functionNames, signerNames, uniqueEnv)),
  };
  const doc = new Document(content);
  doc.commentBefore =
    ` Neoflow account ${state.account.name} (${state.account.id}), as \`neoflow export\` wrote it.\n` +
    ' No value of a secret or a credential is here: each names the environment variable (or a file)\n' +
    ' `neoflow apply` reads it from, and an unset one keeps what the account stores (docs/automations-as-code.md).';
  automations.forEach((automation, index) => {
    if (automation.status !== 'error') return;
    const node = doc.getIn(['automations', index], true) as { commentBefore?: string };
    const why = automation.details ? `${automation.details.reason}: ${automation.details.message}` : 'see its details';
    node.commentBefore = ` status: error (${why.replace(/\s+/g, ' ')}); apply leaves its status as it is`;
  });
  return doc.toString({ lineWidth: 0, blockQuote: 'literal' });
}

async function functionEntry(fn: RemoteFunction, options: ExportOptions) {
  const defaults = createFunctionBody.parse({ name: fn.name, code: ' ', runtime: fn.runtime });
  const entry: Record<string, unknown> = { name: fn.name };
  if (fn.description !== null) entry.description = fn.description;
  entry.runtime = fn.runtime;
  for (const field of ['timeout', 'environment', 'secrets', 'tags', 'allowedHosts'] as const) {
    if (JSON.stringify(fn[field]) !== JSON.stringify(defaults[field])) entry[field] = fn[field];
  }
  if (options.codeDir === undefined) return { ...entry, code: fn.code };
  const codeFile = join(options.codeDir, `${fn.name}.${fn.runtime === 'typescript' ? 'ts' : 'js'}`);
  await mkdir(options.codeDir, { recursive: true });
  await writeFile(codeFile, fn.code);
  return { ...entry, codeFile };
}

function automationEntry(
  automation: RemoteAutomation,
  functionNames: Map<string, string>,
  signerNames: Map<string, string>,
  uniqueEnv: (...words: string[]) => { env: string },
) {
  const parts = structuredClone({ trigger: automation.trigger, action: automation.action, notify: automation.notify });
  for (const slot of credentialSlots(parts))
    slot.holder[slot.key] = uniqueEnv('NEOFLOW_CREDENTIAL', automation.name, slot.path);
  const action = withSignerName(parts.action, signerNames);
  const namedAction = action.type === 'function' ? withFunctionName(action, functionNames) : action;
  return {
    name: automation.name,
    // Always written: applied to a deployment whose first network is another, the file still says its own.
    network: automation.network,
    ...(automation.status === 'error' ? {} : { status: automation.status }),
    trigger: parts.trigger,
    action: namedAction,
    ...(parts.notify.length > 0 ? { notify: parts.notify } : {}),
    ...(automation.budget ? { budget: automation.budget } : {}),
  };
}

/** A function action as the file writes it: its function by name (ids differ between accounts). */
function withFunctionName(action: FunctionAction, functionNames: Map<string, string>) {
  const { type, functionId, ...rest } = action;
  return { type, function: functionNames.get(functionId) ?? `(deleted function ${functionId})`, ...rest };
}
