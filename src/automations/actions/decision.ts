import { hash160Pattern } from '../../chain/contract-args.ts';
import type { ContractCall } from '../../chain/contract-calls.ts';
import { templatedContractArgs } from '../model/arg-templates.ts';
import { resolveCalls } from './resolve-calls.ts';
import type { Action, ExecuteRules } from '../model/action.schemas.ts';
import type { FirePayload } from '../model/run.entity.ts';
import { runErrorName } from '../../shared/outcomes.ts';

/**
 * What a sending function's result says: the calls to send (one transaction, all or none; their
 * scriptHash lower-case, their templates resolved), a reason to send nothing, or why the run fails
 * and sends nothing: a result of another shape (`InvalidDecision`), or a template in a call's
 * arguments that the trigger cannot fill (`TemplateError`).
 */
type Decision =
  | { kind: 'calls'; calls: ContractCall[] }
  | { kind: 'skip'; reason: string }
  | {
      kind: 'invalid';
      error: { name: typeof runErrorName.InvalidDecision | typeof runErrorName.TemplateError; message: string };
    };

/** As long as the run's `skipped` column: a longer reason is cut. */
export const maxSkipReasonChars = 512;
/** A contract action's `operation` is as long at most. */
const maxOperationChars = 64;
/** How much of a field name the result chose is repeated in a message. */
const maxNameChars = 64;
/** A message may repeat a path inside an argument, whose names the result chose. */
export const maxInvalidMessageChars = 1024;

const shapes = '{calls: [...]}, {skip: "reason"}, {canExec: true, calls: [...]} or {canExec: false, message?}';

const invalid = (message: string): Decision => ({
  kind: 'invalid',
  error: { name: runErrorName.InvalidDecision, message: message.slice(0, maxInvalidMessageChars) },
});
const named = (key: string) => JSON.stringify(key.length > maxNameChars ? `${key.slice(0, maxNameChars)}…` : key);
const kindOf = (value: unknown) => (value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value);

/**
 * Reads the result of a sending function as a decision (docs/functions.md). The result is user
 * output: every count and length is checked before anything inside it is read, and the messages
 * repeat nothing of it but bounded names and checked script hashes. Gelato's shape is read as
 * ours (`canExec: false` a skip, `canExec: true` with `calls`), so ported code keeps its shape.
 * An argument's value may be a template (`{{trigger.state.amount}}`), resolved against `trigger`.
 */
export function readDecision(result: unknown, rules: ExecuteRules, trigger: FirePayload): Decision {
  if (typeof result !== 'object' || result === null || Array.isArray(result)) {
    return invalid(`The result must be an object, one of ${shapes}; it is ${kindOf(result)}.`);
  }
  const fields = result as Record<string, unknown>;
  if (Object.hasOwn(fields, 'callData')) {
    return invalid(
      'The result holds callData, EVM calldata: a Neo call is {scriptHash, operation, args}; return {canExec: true, calls: [...]}.',
    );
  }
  const keys = Object.keys(fields);
  if (Object.hasOwn(fields, 'canExec')) return readGelato(fields, keys, rules, trigger);
  if (keys.length !== 1 || (keys[0] !== 'calls' && keys[0] !== 'skip')) {
    const unknown = keys.find((key) => key !== 'calls' && key !== 'skip');
    const wrong = unknown === undefined ? 'holds both calls and skip' : `holds the field ${named(unknown)}`;
    return invalid(`The result ${wrong}; it must be one of ${shapes}.`);
  }
  return keys[0] === 'skip' ? readSkip(fields.skip, 'skip') : readCalls(fields.calls, rules, trigger);
}

function readGelato(
  fields: Record<string, unknown>,
  keys: string[],
  rules: ExecuteRules,
  trigger: FirePayload,
): Decision {
  const { canExec } = fields;
  if (typeof canExec !== 'boolean') return invalid(`canExec must be true or false; it is ${kindOf(canExec)}.`);
  const allowed = canExec ? ['canExec', 'calls'] : ['canExec', 'message'];
  const unknown = keys.find((key) => !allowed.includes(key));
  if (unknown !== undefined) {
    const shape = canExec ? '{canExec: true, calls: [...]}' : '{canExec: false, message?}';
    return invalid(`The result holds the field ${named(unknown)}; with canExec ${canExec} it must be ${shape}.`);
  }
  if (canExec) return readCalls(fields.calls, rules, trigger);
  return fields.message === undefined
    ? { kind: 'skip', reason: 'canExec: false' }
    : readSkip(fields.message, 'message');
}

function readSkip(reason: unknown, field: string): Decision {
  if (typeof reason !== 'string' || reason.length === 0) {
    return invalid(`${field} must be a non-empty string, the reason to send nothing; it is ${kindOf(reason)}.`);
  }
  return { kind: 'skip', reason: reason.slice(0, maxSkipReasonChars) };
}

function readCalls(calls: unknown, rules: ExecuteRules, trigger: FirePayload): Decision {
  if (!Array.isArray(calls)) return invalid(`calls must be an array; it is ${kindOf(calls)}.`);
  if (calls.length === 0) return invalid('calls is empty: return {skip: "reason"} to send nothing.');
  if (calls.length > rules.maxCalls) {
    return invalid(`The result decides ${calls.length} calls, more than the action's maxCalls (${rules.maxCalls}).`);
  }
  const allowed = new Set(rules.allowedContracts.map((hash) => hash.toLowerCase()));
  const read: ContractCall[] = [];
  for (const [index, call] of calls.entries()) {
    const checked = readCall(call, allowed);
    if (typeof checked === 'string') return invalid(`calls[${index}]${checked}`);
    read.push(checked);
  }
  const resolved = resolveCalls(read, trigger);
  return Array.isArray(resolved) ? { kind: 'calls', calls: resolved } : { kind: 'invalid', error: resolved };
}

/** A contract action's argument rules, templates included (checked when resolved). */
const argsSchema = templatedContractArgs();

const callFields = ['scriptHash', 'operation', 'args'];

/** The call, or what is wrong with it (to follow its `calls[i]`). */
function readCall(call: unknown, allowed: Set<string>): ContractCall | string {
  if (typeof call !== 'object' || call === null || Array.isArray(call)) {
    return ` must be an object {scriptHash, operation, args}; it is ${kindOf(call)}.`;
  }
  const fields = call as Record<string, unknown>;
  const unknown = Object.keys(fields).find((key) => !callFields.includes(key));
  if (unknown !== undefined) return ` holds the field ${named(unknown)}; a call is {scriptHash, operation, args}.`;
  const { scriptHash, operation, args = [] } = fields;
  if (typeof scriptHash !== 'string' || !hash160Pattern.test(scriptHash)) {
    return '.scriptHash must be 0x followed by 40 hexadecimal characters.';
  }
  const hash = scriptHash.toLowerCase();
  if (!allowed.has(hash)) return `.scriptHash ${hash} is not one of the action's allowedContracts.`;
  if (typeof operation !== 'string' || operation.length === 0 || operation.length > maxOperationChars) {
    return `.operation must be a string of 1 to ${maxOperationChars} characters.`;
  }
  // The contract action's own rules, with the path of the argument at fault.
  const parsed = argsSchema.safeParse(args);
  if (!parsed.success) {
    const [issue] = parsed.error.issues;
    const path = (issue?.path ?? []).map((key) => (typeof key === 'number' ? `[${key}]` : `.${String(key)}`));
    return `.args${path.join('')} ${issue?.message ?? 'is invalid'}.`;
  }
  return { scriptHash: hash, operation, args: parsed.data };
}

/**
 * What the automation's action, as it is now, refuses of the calls a run holds (decided, or
 * resolved, before the action changed): more than its `maxCalls`, a contract outside its
 * `allowedContracts` (a contract action allows its one call), or an action that sends nothing.
 * Null when it allows them all. A retried prepare checks again: narrowed rules hold from then on.
 */
export function refusedByAction(calls: ContractCall[], action: Action): string | null {
  const rules: ExecuteRules | undefined =
    action.type === 'contract'
      ? { allowedContracts: [action.scriptHash], maxCalls: 1 }
      : action.type === 'function'
        ? action.execute
        : undefined;
  const held = `The run holds ${calls.length} call${calls.length === 1 ? '' : 's'} decided before its action changed`;
  if (!rules) return `${held}; its action sends no calls now. Nothing was signed.`;
  if (calls.length > rules.maxCalls)
    return `${held}; the action's maxCalls is ${rules.maxCalls} now. Nothing was signed.`;
  const allowed = new Set(rules.allowedContracts.map((hash) => hash.toLowerCase()));
  const outside = calls.findIndex((call) => !allowed.has(call.scriptHash.toLowerCase()));
  if (outside === -1) return null;
  const hash = calls[outside]!.scriptHash.toLowerCase();
  return `${held}; calls[${outside}].scriptHash ${hash} is not one of the action's allowedContracts now. Nothing was signed.`;
}
