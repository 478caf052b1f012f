import { contractArgsSchema, type ContractArg, type DeferredValue } from '../../chain/contract-args.ts';

/**
 * Arguments from the trigger: their syntax. A contract argument's `value` (a contract action's, or
 * a call a function decided) may be exactly `{{trigger.<path>}}`, replaced at fire time by what
 * the trigger payload holds there (resolve-calls.ts). Here:
 * - `templateValue` (a `DeferredValue`): the syntax check, for the request schemas and for
 *   checking decided calls, with `contractArgProblem(arg, templateValue)`;
 * - `templateRootProblem`: a root a trigger type never carries, refused at create and update.
 */

/** Longer than any path a payload holds; bounds the text parsed before the pattern runs. */
const maxTemplateChars = 256;
/** Segments after `trigger`: `state.<name>` and a few levels inside a decoded map or array. */
const maxDepth = 8;
const segmentPattern = /^[A-Za-z0-9_]{1,64}$/;

/**
 * What each kind of fire carries (run.entity.ts FirePayload); only `state` (an event's decoded
 * arguments), a webhook's `body` and its `headers` have paths inside.
 */
const rootsByFire = {
  schedule: ['type', 'scheduledAt'],
  blockchain: ['type', 'scriptHash', 'eventName', 'state', 'txHash', 'blockHash', 'blockIndex', 'notificationIndex'],
  transaction: ['type', 'txHash', 'blockHash', 'blockIndex', 'sender', 'vmState', 'exception', 'calls'],
  price: ['type', 'asset', 'currency', 'price', 'observedAt'],
  state: ['type', 'scriptHash', 'operation', 'value', 'blockIndex', 'blockHash'],
  manual: ['type'],
  webhook: ['type', 'body', 'headers', 'receivedAt'],
} satisfies Record<string, readonly string[]>;
type FireType = keyof typeof rootsByFire;
const anyRoot = new Set(Object.values(rootsByFire).flat());
const rootsWithPaths = new Set(['state', 'body', 'headers']);

/** A value is a template when it is a string that starts with `{{`; it must then be exactly one. */
export const isTemplate = (value: unknown): value is string => typeof value === 'string' && value.startsWith('{{');

/** The path after `trigger.` (`state.amount`), or what is wrong with the template. */
export function parseTemplate(text: string): { path: string[] } | { problem: string } {
  const invalid = { problem: 'must be a template of the form {{trigger.<path>}}, such as {{trigger.state.amount}}' };
  if (text.length > maxTemplateChars)
    return { problem: `must be a template of at most ${maxTemplateChars} characters` };
  if (!text.endsWith('}}')) return invalid;
  const [head, ...path] = text.slice(2, -2).trim().split('.');
  if (head !== 'trigger' || path.length === 0 || !path.every((segment) => segmentPattern.test(segment))) return invalid;
  if (path.length > maxDepth) return { problem: `must name a path at most ${maxDepth} deep` };
  const root = path[0]!;
  if (!anyRoot.has(root)) return { problem: `names trigger.${root}, which no trigger carries` };
  if (!rootsWithPaths.has(root) && path.length > 1)
    return { problem: `names a path inside trigger.${root}, which has none` };
  return { path };
}

/**
 * The syntax of a template value (`contractArgProblem`'s `DeferredValue`): an Array argument's
 * items may be templates, not the array itself.
 */
export const templateValue: DeferredValue = (value, type) => {
  if (!isTemplate(value)) return undefined;
  if (type === 'Array') return 'must be an array of arguments: its items may be templates, the array may not';
  const parsed = parseTemplate(value);
  return 'problem' in parsed ? parsed.problem : null;
};

/** A contract action's `args`: each value as its type takes it, or a template resolved when the run fires. */
export const templatedContractArgs = () =>
  contractArgsSchema(templateValue, {
    id: 'TemplatedContractArg',
    otherValue: {
      type: 'string',
      pattern: '^\\{\\{.*\\}\\}$',
      maxLength: maxTemplateChars,
      description: 'A template {{trigger.<path>}}, resolved against what fired the run, then checked by the type.',
    },
  });

/** Where a template is, as the request names it (`action.args.0.value`), and the root it names. */
interface TemplateRootProblem {
  field: string;
  message: string;
}

/**
 * The first template in `args` whose root a fire of `triggerType` never carries (a price on a
 * schedule); null when there is none. A manual fire carries only `trigger.type`, and is not
 * considered: it is an operator's test of the action.
 */
export function templateRootProblem(triggerType: FireType, args: ContractArg[]): TemplateRootProblem | null {
  const roots: readonly string[] = rootsByFire[triggerType];
  for (const { path, template } of templatesIn(args, ['args'])) {
    const parsed = parseTemplate(template);
    if ('problem' in parsed || roots.includes(parsed.path[0]!)) continue;
    const message = `names trigger.${parsed.path[0]}, which a ${triggerType} trigger does not carry`;
    return { field: path.join('.'), message };
  }
  return null;
}

/** Every template in `args`, with its path (`args.0.value`, `args.1.value.2.value`). */
function* templatesIn(
  args: ContractArg[],
  at: (string | number)[],
): Generator<{ path: (string | number)[]; template: string }> {
  for (const [index, { value }] of args.entries()) {
    const path = [...at, index, 'value'];
    if (isTemplate(value)) yield { path, template: value };
    else if (Array.isArray(value)) yield* templatesIn(value as ContractArg[], path);
  }
}
