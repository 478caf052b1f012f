import { argsSizeProblem, contractArgProblem, type ContractArg } from '../../chain/contract-args.ts';
import type { ContractCall } from '../../chain/contract-calls.ts';
import { isTemplate, parseTemplate } from '../model/arg-templates.ts';
import type { FirePayload } from '../model/run.entity.ts';
import { runErrorName } from '../../shared/outcomes.ts';

/**
 * Arguments from the trigger, at fire time: `resolveCalls(calls, trigger)` answers the calls as
 * sent, or a `TemplateError` naming the argument. Its calls' arguments are valid under
 * `contractArgProblem(arg, templateValue)` (arg-templates.ts): the request schema checked a
 * contract action's, a decision's checks those a function returned.
 */

/** What fails a run whose template cannot be resolved into a valid argument; nothing is signed. */
interface TemplateError {
  name: typeof runErrorName.TemplateError;
  message: string;
}

/**
 * The calls as sent: every template replaced by the trigger's value at its path (a number or a
 * boolean as its text, as static values are written), and every argument that held one checked
 * as a static value would be. A path the payload lacks, or a value its argument's type refuses,
 * is a `TemplateError` naming the argument (`args.1`, or `calls.2.args.1` among several calls)
 * and its template; so are a call's arguments heavier, once resolved, than `maxArgsBytes`.
 * Arguments without templates are returned as they are, unchecked: the caller checked them (the
 * request schema, or a decision's checks).
 */
export function resolveCalls(calls: ContractCall[], trigger: FirePayload): ContractCall[] | TemplateError {
  const resolved: ContractCall[] = [];
  for (const [callIndex, call] of calls.entries()) {
    const args: ContractArg[] = [];
    for (const [index, arg] of call.args.entries()) {
      const name = calls.length > 1 ? `calls.${callIndex}.args.${index}` : `args.${index}`;
      const result = resolveArg(arg, trigger, name);
      if ('name' in result) return result;
      args.push(result.arg);
    }
    // A template may resolve to more than its text: the bound holds for what is sent.
    const tooHeavy = argsSizeProblem(args);
    if (tooHeavy) {
      const name = calls.length > 1 ? `calls.${callIndex}.args` : 'args';
      return { name: runErrorName.TemplateError, message: `${name}: with its templates resolved, ${tooHeavy}.` };
    }
    resolved.push({ ...call, args });
  }
  return resolved;
}

function resolveArg(arg: ContractArg, trigger: FirePayload, name: string): { arg: ContractArg } | TemplateError {
  const used: string[] = [];
  const missing: string[] = [];
  const resolved = substitute(arg, trigger, used, missing);
  if (used.length === 0) return { arg };
  if (missing.length > 0) {
    const message = `${name}: ${missing[0]} names nothing in what fired this run (a ${trigger.type} fire).`;
    return { name: runErrorName.TemplateError, message };
  }
  const problem = contractArgProblem(resolved);
  if (problem) {
    const at = problem.path ? ` ${problem.path}` : '';
    // One template named: an Array argument may hold many.
    const templates = used.length > 1 ? `${used[0]} and ${used.length - 1} more` : used[0];
    return {
      name: runErrorName.TemplateError,
      message: `${name}: with ${templates} resolved,${at} ${problem.message}.`,
    };
  }
  return { arg: resolved };
}

/** `arg` with its templates (and its items', in an Array) replaced; those used and those unresolved are listed. */
function substitute(arg: ContractArg, trigger: FirePayload, used: string[], missing: string[]): ContractArg {
  const { value } = arg;
  if (isTemplate(value)) {
    used.push(value);
    const found = valueAt(trigger, value);
    if (found === undefined) missing.push(value);
    return { ...arg, value: asStatic(found) };
  }
  if (!Array.isArray(value)) return arg;
  return { ...arg, value: (value as ContractArg[]).map((item) => substitute(item, trigger, used, missing)) };
}

/** What the payload holds at the template's path; undefined when it holds nothing there. */
function valueAt(trigger: FirePayload, template: string): unknown {
  const parsed = parseTemplate(template);
  if ('problem' in parsed) return undefined;
  let value: unknown = trigger;
  for (const segment of parsed.path) {
    if (Array.isArray(value) && /^\d+$/.test(segment)) value = value[Number(segment)];
    else if (isPlainObject(value) && Object.hasOwn(value, segment)) value = value[segment];
    else return undefined;
  }
  return value;
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A number or a boolean as its text, the way static values are written; anything else as it is. */
const asStatic = (value: unknown) => (typeof value === 'number' || typeof value === 'boolean' ? String(value) : value);
