import { contractArgsSchema, type ContractArg, type DeferredValue } from '../../chain/contract-args.ts';
import { copiedHeaderNames } from './webhook-trigger.schemas.ts';

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
/**
 * One segment of a path: `.name` (letters, digits, `_`), or a quoted name in brackets, `["x-id"]`
 * or `['x-id']`, for a name with other characters (a header's hyphens, a body key's): visible
 * ASCII and spaces but quotes and `\`, at most 64 either way. Bounded alternatives, matched from
 * where the last ended: linear in the template's length.
 */
const segmentSyntax = /\.([A-Za-z0-9_]{1,64})|\[\s*(["'])([\x20\x21\x23-\x26\x28-\x5b\x5d-\x7e]{1,64})\2\s*\]/y;
/** A header's name as `trigger.headers` holds it: the trigger's own syntax (webhook-trigger.schemas.ts). */
const headerNamePattern = /^[A-Za-z0-9-]{1,64}$/;

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

/**
 * The path after `trigger` (`['state', 'amount']`), or what is wrong with the template. A header's
 * name is lower-cased, as `trigger.headers` holds it: `{{trigger.headers["X-Request-Id"]}}` reads
 * the `x-request-id` header.
 */
export function parseTemplate(text: string): { path: string[] } | { problem: string } {
  const invalid = {
    problem:
      'must be a template of the form {{trigger.<path>}}, such as {{trigger.state.amount}} or {{trigger.headers["x-id"]}}',
  };
  if (text.length > maxTemplateChars)
    return { problem: `must be a template of at most ${maxTemplateChars} characters` };
  if (!text.startsWith('{{') || !text.endsWith('}}')) return invalid;
  const inner = text.slice(2, -2).trim();
  if (!inner.startsWith('trigger')) return invalid;
  const path = segmentsOf(inner, 'trigger'.length);
  if (path === undefined || path.length === 0) return invalid;
  if (path.length > maxDepth) return { problem: `must name a path at most ${maxDepth} deep` };
  const root = path[0]!;
  if (!anyRoot.has(root)) return { problem: `names trigger.${root}, which no trigger carries` };
  if (!rootsWithPaths.has(root) && path.length > 1)
    return { problem: `names a path inside trigger.${root}, which has none` };
  if (root === 'headers') return headerPath(path);
  return { path };
}

/** The segments of `text` from `at` to its end; undefined when anything there is not a segment. */
function segmentsOf(text: string, at: number): string[] | undefined {
  const path: string[] = [];
  segmentSyntax.lastIndex = at;
  while (segmentSyntax.lastIndex < text.length) {
    const match = segmentSyntax.exec(text);
    if (!match) return undefined;
    path.push(match[1] ?? match[3]!);
  }
  return path;
}

/** `headers.<name>`: a header's value is text, with no path inside; its name as headers are named. */
function headerPath(path: string[]): { path: string[] } | { problem: string } {
  if (path.length > 2) return { problem: "names a path inside a header's value, which has none" };
  const name = path[1];
  if (name !== undefined && !headerNamePattern.test(name))
    return { problem: `names the header "${name}": a header's name is at most 64 letters, digits and hyphens` };
  return { path: name === undefined ? path : ['headers', name.toLowerCase()] };
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
 * The first template in `args` whose root a fire of the trigger's type never carries (a price on a
 * schedule), or that names a header a webhook's runs do not receive; null when there is none. A
 * manual fire carries only `trigger.type`, and is not considered: it is an operator's test of the
 * action.
 */
export function templateRootProblem(
  trigger: { type: FireType; headers?: string[] },
  args: ContractArg[],
): TemplateRootProblem | null {
  const roots: readonly string[] = rootsByFire[trigger.type];
  const headers = trigger.type === 'webhook' ? copiedHeaderNames(trigger) : [];
  for (const { path, template } of templatesIn(args, ['args'])) {
    const parsed = parseTemplate(template);
    if ('problem' in parsed) continue;
    const [root, header] = parsed.path;
    const field = path.join('.');
    if (!roots.includes(root!))
      return { field, message: `names trigger.${root}, which a ${trigger.type} trigger does not carry` };
    if (root === 'headers' && header !== undefined && !headers.includes(header)) {
      return {
        field,
        message: `names the header "${header}", which its runs do not receive: list it in trigger.headers`,
      };
    }
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
