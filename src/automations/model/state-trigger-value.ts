import { bytesOf, integerOf, type Invocation, type StackItem } from '../../chain/stack-item.ts';

// What a state trigger reads of a contract's answer and how it decides to fire: pure, so that the
// follower's shared reads and the tests decide alike.

export const stateConditions = ['above', 'below', 'equals', 'changed'] as const;
type StateCondition = (typeof stateConditions)[number];

/** `path`: up to this many dot-separated item indices into the returned Array or Struct. */
const maxPathSegments = 8;
export const statePathPattern = new RegExp(String.raw`^\d{1,4}(?:\.\d{1,4}){0,${maxPathSegments - 1}}$`);
/** A ByteString longer than this is not a value a threshold is about: refused, not stored. */
const maxValueBytes = 1024;

/** What was read: as the payload shows it, and as a big integer when NeoVM converts it to one. */
interface Observed {
  value: string;
  numeric: bigint | null;
}

/**
 * The value at `path` in the method's return value (the first stack item), or what keeps it from
 * being one: a fault, an index outside a list, an item that is no Integer, Boolean or ByteString.
 */
export function observedValue(invocation: Invocation, path: string | undefined): Observed | { problem: string } {
  if (invocation.state !== 'HALT') return { problem: `the call faulted: ${invocation.exception ?? 'no exception'}` };
  let item: StackItem | undefined = invocation.stack[0];
  if (!item) return { problem: 'the call returned nothing' };
  for (const segment of path ? path.split('.') : []) {
    const list: StackItem[] | null =
      item.type === 'Array' || item.type === 'Struct' ? (item.value as StackItem[]) : null;
    item = list?.[Number(segment)];
    if (!item) return { problem: `the result has no item at path ${path}` };
  }
  if (item.type === 'Integer' || item.type === 'Boolean') {
    const value = integerOf(item);
    return value === null ? { problem: 'the result is not an integer' } : { value, numeric: BigInt(value) };
  }
  const bytes = bytesOf(item);
  if (!bytes) return { problem: `the result is a ${item.type}, not an Integer, Boolean or ByteString` };
  if (bytes.length > maxValueBytes) return { problem: `the result is longer than ${maxValueBytes} bytes` };
  const numeric = integerOf(item);
  return { value: bytes.toString('base64'), numeric: numeric === null ? null : BigInt(numeric) };
}

/** What the follower keeps of a trigger between evaluations (state_trigger_marks). */
export interface StateMark {
  /** Whether the condition was seen false (or never seen) since the last fire. */
  armed: boolean;
  lastValue: string | null;
}

/** A trigger not evaluated yet is armed: one whose condition already holds fires at once, as a price trigger does. */
export const freshMark: StateMark = { armed: true, lastValue: null };

interface StateDecision {
  fire: boolean;
  mark: StateMark;
}

/**
 * Fires when the condition becomes true and re-arms when it is seen false; `changed` fires on any
 * value other than the last one seen (not on the first). `target` is the trigger's value, parsed
 * once a round.
 */
export function decideState(
  condition: StateCondition,
  target: bigint | null,
  mark: StateMark,
  observed: Observed,
): StateDecision | { problem: string } {
  if (condition === 'changed') {
    const fire = mark.lastValue !== null && mark.lastValue !== observed.value;
    return { fire, mark: { armed: true, lastValue: observed.value } };
  }
  if (observed.numeric === null || target === null) return { problem: 'the result does not read as an integer' };
  const holds =
    condition === 'above'
      ? observed.numeric > target
      : condition === 'below'
        ? observed.numeric < target
        : observed.numeric === target;
  return { fire: holds && mark.armed, mark: { armed: !holds, lastValue: observed.value } };
}

/**
 * Whether a trigger evaluated last at `evaluatedBlock` (if ever) is due at `index`: once in each
 * window of `everyBlocks` blocks, the windows aligned on the block index, so that automations with
 * the same read and interval share their reads.
 */
export function isDue(index: number, everyBlocks: number, evaluatedBlock: number | null): boolean {
  if (evaluatedBlock === null) return true;
  return Math.floor(index / everyBlocks) > Math.floor(evaluatedBlock / everyBlocks);
}
