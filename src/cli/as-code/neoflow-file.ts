import { readFile, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { LineCounter, parseDocument, type Document } from 'yaml';
import { z } from 'zod';
import type { Trigger } from '../../automations/model/trigger.schemas.ts';
import type { Action, FunctionAction } from '../../automations/model/action.schemas.ts';
import { createAutomationBody } from '../../automations/automations.schemas.ts';
import type { Budget } from '../../chain/gas-budget.ts';
import { credentialsOf, type CredentialKind } from '../../automations/credentials/credentials.ts';
import type { NotifyRule } from '../../automations/model/notify.schemas.ts';
import type { Language } from '../../functions/function.entity.ts';
import { createFunctionBody } from '../../functions/functions.schemas.ts';
import { secretName } from '../../secrets/secrets.schemas.ts';
import { createSignerBody, type CreateSigner } from '../../signers/signers.schemas.ts';
import { readFunctionFile } from '../function-file.ts';
import { fileBelow, type ApplyReach } from './apply-reach.ts';
import { credentialSlots } from './credential-slots.ts';
import { isReference, referenceSchema, resolveReference, type Reference, type Resolved } from './references.ts';

/** Read before it is parsed: room for a few dozen functions' code inline (256 KiB each at most). */
const maxFileBytes = 8 * 1024 * 1024;

/** YAML aliases expanded at most: a few are handy, thousands are a "billion laughs". */
const maxAliasCount = 100;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Names once each in a list of named resources. */
const uniqueNames = (list: { name?: unknown }[], ctx: z.RefinementCtx) => {
  const seen = new Set<unknown>();
  list.forEach((item, index) => {
    if (seen.has(item.name))
      ctx.addIssue({ code: 'custom', path: [index, 'name'], message: `names "${String(item.name)}" twice` });
    seen.add(item.name);
  });
};

const secretEntry = z.strictObject({
  name: secretName,
  description: z.string({ error: 'must be a string' }).max(1024, 'must be at most 1024 characters').optional(),
  /** Needed to create the secret, or with --send-secrets to set its value again. */
  value: referenceSchema.optional(),
});

// Checked whole by the API's own schema once its code is read (createFunctionBody).
const functionEntry = z
  .looseObject({
    name: z.string({ error: 'must be a string' }),
    code: z.string({ error: 'must be a string' }).optional(),
    codeFile: z.string({ error: 'must be a string' }).min(1).max(1024, 'must be at most 1024 characters').optional(),
  })
  .refine((entry) => (entry.code === undefined) !== (entry.codeFile === undefined), {
    message: 'must give its code as code or as codeFile, not both',
  });

// Checked whole by the API's own schema (createSignerBody); an imported key only by reference, never in the file.
const signerEntry = z.looseObject({
  name: z.string({ error: 'must be a string' }),
  privateKey: referenceSchema.optional(),
});

// Checked whole by the API's own schema once its function and credentials are read (createAutomationBody).
const automationEntry = z.looseObject({ name: z.string({ error: 'must be a string' }) });

/** A neoflow.yaml file (docs/automations-as-code.md): what an account should hold. */
const fileSchema = z.strictObject({
  version: z.literal(1, { error: 'must be 1' }),
  /** The account the file was exported from; apply refuses another unless --account names it. */
  account: z.string({ error: 'must be a string' }).min(1).max(128).optional(),
  secrets: z.array(secretEntry, { error: 'must be a list' }).max(1000).superRefine(uniqueNames).default([]),
  signers: z.array(signerEntry, { error: 'must be a list' }).max(100).superRefine(uniqueNames).default([]),
  functions: z.array(functionEntry, { error: 'must be a list' }).max(1000).superRefine(uniqueNames).default([]),
  automations: z.array(automationEntry, { error: 'must be a list' }).max(10_000).superRefine(uniqueNames).default([]),
});

export interface DesiredSecret {
  name: string;
  description: string | null;
  value: Resolved | undefined;
}

/** A signer to create unless the account has one of its name: the create's body, an imported key apart. */
export interface DesiredSigner {
  name: string;
  body: Omit<CreateSigner, 'privateKey'>;
  /** An imported key, read from where the file says: needed only to create the signer. */
  privateKey: Resolved | undefined;
}

/** A function's fields as the API stores them (its defaults applied). */
export interface FunctionFields {
  description: string | null;
  runtime: Language;
  timeout: number;
  environment: Record<string, string>;
  secrets: string[];
  tags: string[];
  allowedHosts: string[];
  code: string;
}

export interface DesiredFunction {
  name: string;
  fields: FunctionFields;
}

/** A function action naming its function by name, as the file does; the others as the API takes them. */
export type NamedAction = Exclude<Action, FunctionAction> | (Omit<FunctionAction, 'functionId'> & { function: string });

/** A credential of an automation: its kind, and its value (undefined: keep what is stored there). */
interface DesiredCredential {
  kind: CredentialKind;
  resolved: Resolved;
}

export interface DesiredAutomation {
  name: string;
  /** Unset: an automation created is on the deployment's first network, one that exists keeps its own. */
  network: string | undefined;
  /** Unset: an automation created starts active, one that exists keeps its status. */
  status: 'active' | 'inactive' | undefined;
  trigger: Trigger;
  action: NamedAction;
  notify: NotifyRule[];
  budget: Budget | null;
  /** By path (`notify.0.channel.url`); the parts above hold placeholders there. */
  credentials: Map<string, DesiredCredential>;
}

export interface NeoflowFile {
  account: string | undefined;
  secrets: DesiredSecret[];
  signers: DesiredSigner[];
  functions: DesiredFunction[];
  automations: DesiredAutomation[];
}

type Path = (string | number)[];

interface Problem {
  path: Path;
  message: string;
}

/** What stands in for a credential read only at apply (a mask, which the API's schema takes). */
const placeholders: Record<CredentialKind, string> = { url: 'https://unresolved.invalid/****', header: '****' };

/**
 * Reads and checks a neoflow.yaml: bounded before it is parsed, then each part by the API's own
 * schemas. Every problem is reported with its field's path and line; references to the
 * environment and to files are read (their values are never printed), only as far as apply may
 * reach (apply-reach.ts; `anyEnv`: `--allow-any-env`).
 */
export async function loadNeoflowFile(
  file: string,
  env: NodeJS.ProcessEnv,
  { anyEnv = false }: { anyEnv?: boolean } = {},
): Promise<NeoflowFile> {
  const size = (await stat(file).catch(() => undefined))?.size;
  if (size === undefined) throw new Error(`cannot read ${file}`);
  if (size > maxFileBytes) throw new Error(`${file} is over ${maxFileBytes} bytes`);
  const lineCounter = new LineCounter();
  const doc = parseDocument(await readFile(file, 'utf8'), { lineCounter, uniqueKeys: true, prettyErrors: false });
  const [syntax] = doc.errors;
  if (syntax) {
    const at = syntax.linePos?.[0];
    throw new Error(`${file}${at ? `:${at.line}:${at.col}` : ''}: ${syntax.message}`);
  }
  const raw: unknown = doc.toJS({ maxAliasCount });
  const parsed = fileSchema.safeParse(raw ?? {});
  const report = (problems: Problem[]) => new Error(describeProblems(file, doc, lineCounter, problems));
  if (!parsed.success) throw report(parsed.error.issues.map(({ path, message }) => ({ path: path as Path, message })));
  const reach: ApplyReach = { dir: dirname(file), env, anyEnv };
  const problems: Problem[] = [];
  const functions: DesiredFunction[] = [];
  for (const [index, entry] of parsed.data.functions.entries()) {
    const loaded = await loadFunction(entry, reach).catch((error: Error) => {
      problems.push({ path: ['functions', index, 'codeFile'], message: error.message });
      return undefined;
    });
    if (!loaded) continue;
    if ('problems' in loaded) problems.push(...loaded.problems.map(prefixed(['functions', index])));
    else functions.push(loaded);
  }
  const automations: DesiredAutomation[] = [];
  for (const [index, entry] of parsed.data.automations.entries()) {
    const loaded = await loadAutomation(entry, reach).catch((error: Error) => ({
      problems: [{ path: [] as Path, message: error.message }],
    }));
    if ('problems' in loaded) problems.push(...loaded.problems.map(prefixed(['automations', index])));
    else automations.push(loaded);
  }
  const secrets: DesiredSecret[] = [];
  for (const [index, entry] of parsed.data.secrets.entries()) {
    try {
      const value = entry.value && (await resolveReference(entry.value, reach));
      secrets.push({ name: entry.name, description: entry.description ?? null, value });
    } catch (error) {
      problems.push({ path: ['secrets', index, 'value'], message: (error as Error).message });
    }
  }
  const signers: DesiredSigner[] = [];
  for (const [index, entry] of parsed.data.signers.entries()) {
    const loaded = await loadSigner(entry, reach).catch((error: Error) => ({
      problems: [{ path: ['privateKey'] as Path, message: error.message }],
    }));
    if ('problems' in loaded) problems.push(...loaded.problems.map(prefixed(['signers', index])));
    else signers.push(loaded);
  }
  if (problems.length > 0) throw report(problems);
  return { account: parsed.data.account, secrets, signers, functions, automations };
}

const prefixed =
  (prefix: Path) =>
  ({ path, message }: Problem): Problem => ({ path: [...prefix, ...path], message });

async function loadFunction(
  entry: z.infer<typeof functionEntry>,
  reach: ApplyReach,
): Promise<DesiredFunction | { problems: Problem[] }> {
  const { codeFile, ...fields } = entry;
  const fromFile = codeFile === undefined ? undefined : await readFunctionFile(await fileBelow(reach, codeFile));
  const body = fromFile ? { runtime: fromFile.runtime, ...fields, code: fromFile.code } : fields;
  const parsed = createFunctionBody.safeParse(body);
  if (!parsed.success) {
    return {
      problems: parsed.error.issues.map(({ path, message }) => ({
        path: codeFile !== undefined && path[0] === 'code' ? ['codeFile'] : (path as Path),
        message,
      })),
    };
  }
  const { name, description, ...rest } = parsed.data;
  return { name, fields: { ...rest, description: description ?? null } };
}

/** A key of the curve that stands in, while the file is checked, for an imported key not read (its variable unset). */
const placeholderKey = '01'.repeat(32);

async function loadSigner(
  entry: z.infer<typeof signerEntry>,
  reach: ApplyReach,
): Promise<DesiredSigner | { problems: Problem[] }> {
  const { privateKey: reference, ...fields } = entry;
  const privateKey = reference && (await resolveReference(reference, reach));
  const imported = fields.type === 'import' ? { privateKey: privateKey?.value ?? placeholderKey } : {};
  const parsed = createSignerBody.safeParse({ ...fields, ...imported });
  if (!parsed.success)
    return { problems: parsed.error.issues.map(({ path, message }) => ({ path: path as Path, message })) };
  const body = { ...parsed.data };
  delete (body as { privateKey?: string }).privateKey;
  return { name: parsed.data.name, body, privateKey };
}

async function loadAutomation(
  entry: z.infer<typeof automationEntry>,
  reach: ApplyReach,
): Promise<DesiredAutomation | { problems: Problem[] }> {
  const raw = structuredClone(entry) as Record<string, unknown>;
  const { action } = raw;
  let functionName: string | undefined;
  if (isRecord(action) && action.type === 'function') {
    if ('functionId' in action)
      return {
        problems: [
          { path: ['action', 'functionId'], message: 'ids differ between accounts: name it with function: <name>' },
        ],
      };
    if (typeof action.function !== 'string')
      return {
        problems: [{ path: ['action', 'function'], message: 'must name a function of the file or the account' }],
      };
    functionName = action.function;
    delete action.function;
    action.functionId = functionName;
  }
  const references = new Map<string, Reference>();
  for (const slot of credentialSlots(raw)) {
    const value = slot.holder[slot.key];
    if (!isReference(value)) continue;
    references.set(slot.path, value);
    slot.holder[slot.key] = placeholders[slot.kind];
  }
  const parsed = createAutomationBody.safeParse(raw);
  if (!parsed.success) {
    return {
      problems: parsed.error.issues.map(({ path, message }) => ({
        path: path.map((part) => (functionName !== undefined && part === 'functionId' ? 'function' : part)) as Path,
        message,
      })),
    };
  }
  const { name, network, trigger, notify, budget } = parsed.data;
  const credentials = new Map<string, DesiredCredential>();
  for (const { path, kind, value } of credentialsOf(parsed.data)) {
    const reference = references.get(path);
    const resolved = reference ? await resolveReference(reference, reach) : { label: 'the file', value };
    credentials.set(path, { kind, resolved });
  }
  return {
    name,
    network,
    status: entry.status === undefined ? undefined : parsed.data.status,
    trigger,
    action: namedAction(parsed.data.action, functionName),
    notify,
    budget: budget ?? null,
    credentials,
  };
}

function namedAction(action: Action, functionName: string | undefined): NamedAction {
  if (action.type !== 'function' || functionName === undefined) return action as NamedAction;
  // Every field of the action as parsed, but the id that stood in for the name.
  const named: Record<string, unknown> = { ...action, function: functionName };
  delete named.functionId;
  return named as NamedAction;
}

/** One line a problem: `neoflow.yaml:12:9 automations[0].trigger.cron: is not a valid cron expression`. */
function describeProblems(file: string, doc: Document, lines: LineCounter, problems: Problem[]): string {
  const described = problems.map(({ path, message }) => {
    const at = locate(doc, lines, path);
    return `${file}${at}: ${pathText(path) || '(the file)'}: ${message}`;
  });
  return `${file} is not valid:\n  ${described.join('\n  ')}`;
}

/** `:line:column` of the path's node, or of its nearest ancestor that the file holds. */
function locate(doc: Document, lines: LineCounter, path: Path): string {
  for (let length = path.length; length >= 0; length--) {
    const node = doc.getIn(path.slice(0, length), true) as { range?: [number, number, number] } | undefined;
    if (node?.range) {
      const { line, col } = lines.linePos(node.range[0]);
      return `:${line}:${col}`;
    }
  }
  return '';
}

const pathText = (path: Path) =>
  path.map((part, index) => (typeof part === 'number' ? `[${part}]` : `${index ? '.' : ''}${part}`)).join('');
