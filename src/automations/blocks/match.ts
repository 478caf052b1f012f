import type { BlockTransaction } from '../../chain/block-transactions.ts';
import type { EventParameter } from '../../chain/blocks.ts';
import { normalizeHash160 } from '../../chain/contract-args.ts';
import { stateItems, type StackItem } from '../../chain/stack-item.ts';
import type { BlockchainTrigger, TransactionTrigger } from '../model/trigger.schemas.ts';
import { conditionsOf, type Condition } from './filter-conditions.ts';
import type { Decoded } from './filter-values.ts';
import { NotificationArgument } from './notification-argument.ts';

/** What a blockchain trigger listens for (its `type` aside). */
export type NotificationTrigger = Omit<BlockchainTrigger, 'type'>;

/**
 * Whether an input matches a trigger, and if not, why: condition by condition. The block follower
 * asks `matchesNotification`/`matchesTransaction` (they stop at the first condition that fails and
 * build no reason), the explain call `explainNotification`/`explainTransaction`: both run the same
 * conditions, so what the explanation says is what the follower did.
 */

/** A contract notification from an application log. */
export interface Notification {
  /** 0x script hash. */
  contract: string;
  eventName: string;
  /** An Array item: the event's arguments in ABI order. */
  state: StackItem;
}

type MatchCondition = 'contract' | 'event' | 'filter' | 'anyOf' | 'sender' | 'operation' | 'vmState';

/** One condition that does not hold: what the trigger expected, what the input had. */
export interface MatchReason {
  condition: MatchCondition;
  /** The filter key (event argument) for a `filter` condition. */
  key?: string;
  expected: unknown;
  actual: unknown;
  message: string;
  /** `anyOf`: why each of its filters did not hold, in order. */
  alternatives?: MatchReason[][];
}

export type MatchOutcome = { matched: true } | { matched: false; reasons: MatchReason[] };

/** A condition of a trigger on one input: whether it holds, and why not, made only when asked. */
interface Check {
  holds(): boolean;
  reason(): MatchReason;
}

/** `trigger.scriptHash` or `trigger.event` as a list. */
export const listOf = <T>(value: T | T[] | undefined): T[] =>
  value === undefined ? [] : Array.isArray(value) ? value : [value];

/**
 * The follower's question, asked for every watcher and every notification of its contract: the
 * same conditions as `notificationChecks`, without the objects an explanation needs.
 */
export function matchesNotification(
  trigger: NotificationTrigger,
  notification: Notification,
  parameters: EventParameter[] | null,
): boolean {
  const { contracts, events, filter, anyOf } = parsed(trigger);
  if (!ofContract(contracts, notification) || !ofEvent(events, notification)) return false;
  const argument = argumentsOf(notification, parameters);
  const holds = (condition: Condition) => conditionHolds(condition, argument);
  return filter.every(holds) && (anyOf === null || anyOf.some((conditions) => conditions.every(holds)));
}

/**
 * The trigger's first filter condition: `matchesNotification` checks it before any other condition
 * on an argument, so a notification it does not hold for neither matches the trigger nor throws.
 * Null without one, or when the trigger cannot be parsed (then every match of it throws).
 */
export function firstFilterCondition(trigger: NotificationTrigger): Condition | null {
  try {
    return parsed(trigger).filter[0] ?? null;
  } catch {
    return null;
  }
}

/**
 * How the argument `key` of a notification compares with a string, by the ABI's `parameters` as
 * `matchesNotification` finds it: equal to the strings whose condition's `account()` is `read`
 * (filter-conditions.ts); 'none' when no string is equal to it (or the event has no such
 * argument); 'unknown' when the ABI does not type it Hash160, or reading it throws (as matching does).
 */
export function hash160Argument(
  notification: Notification,
  parameters: EventParameter[],
  key: string,
): { read: string | null } | 'none' | 'unknown' {
  try {
    const at = argumentsOf(notification, parameters)(key);
    if (at === null) return 'none';
    if (at.type !== 'Hash160') return 'unknown';
    const read = at.hash160;
    return read === undefined ? 'none' : { read };
  } catch {
    return 'unknown';
  }
}

export function explainNotification(
  trigger: NotificationTrigger,
  notification: Notification,
  parameters: EventParameter[] | null,
): MatchOutcome {
  return outcomeOf(notificationChecks(trigger, notification, parameters));
}

export function matchesTransaction(trigger: TransactionTrigger, transaction: BlockTransaction): boolean {
  return transactionChecks(trigger, transaction).every((check) => check.holds());
}

export function explainTransaction(trigger: TransactionTrigger, transaction: BlockTransaction): MatchOutcome {
  return outcomeOf(transactionChecks(trigger, transaction));
}

function outcomeOf(checks: Check[]): MatchOutcome {
  const reasons = checks.filter((check) => !check.holds()).map((check) => check.reason());
  return reasons.length === 0 ? { matched: true } : { matched: false, reasons };
}

/**
 * A trigger's filters, parsed once per trigger object (see filter-conditions.ts): the follower's
 * index keeps the object, and with it this, until the trigger changes (watcher-index.ts).
 */
interface ParsedTrigger {
  contracts: Set<string>;
  events: Set<string> | null;
  filter: Condition[];
  anyOf: Condition[][] | null;
}

const parsedTriggers = new WeakMap<NotificationTrigger, ParsedTrigger>();

function parsed(trigger: NotificationTrigger): ParsedTrigger {
  let known = parsedTriggers.get(trigger);
  if (!known) {
    const events = listOf(trigger.event);
    // Each account the trigger names is decoded once, however many of its conditions name it.
    const decoded: Decoded = new Map();
    known = {
      contracts: new Set(listOf(trigger.scriptHash).map(bareHash)),
      events: events.length > 0 ? new Set(events) : null,
      filter: conditionsOf(trigger.filter, decoded),
      anyOf: trigger.anyOf ? trigger.anyOf.map((filter) => conditionsOf(filter, decoded)) : null,
    };
    parsedTriggers.set(trigger, known);
  }
  return known;
}

function notificationChecks(
  trigger: NotificationTrigger,
  notification: Notification,
  parameters: EventParameter[] | null,
): Check[] {
  const { contracts, events, filter, anyOf } = parsed(trigger);
  const argument = argumentsOf(notification, parameters);
  const checks: Check[] = [
    {
      holds: () => ofContract(contracts, notification),
      reason: () => ({
        condition: 'contract',
        expected: trigger.scriptHash,
        actual: notification.contract,
        message: `the notification is of contract ${notification.contract}, not ${describe(trigger.scriptHash)}`,
      }),
    },
  ];
  // Neo event names are case-sensitive.
  if (events) {
    checks.push({
      holds: () => ofEvent(events, notification),
      reason: () => ({
        condition: 'event',
        expected: trigger.event,
        actual: notification.eventName,
        message: `the event is ${notification.eventName}, not ${describe(trigger.event)}`,
      }),
    });
  }
  checks.push(...filter.map((condition) => filterCheck(condition, argument)));
  if (anyOf) {
    checks.push({
      holds: () => anyOf.some((conditions) => conditions.every((condition) => conditionHolds(condition, argument))),
      reason: () => {
        const alternatives = anyOf.map((conditions) =>
          conditions
            .map((condition) => filterCheck(condition, argument))
            .filter((check) => !check.holds())
            .map((check) => check.reason()),
        );
        return {
          condition: 'anyOf',
          expected: trigger.anyOf,
          actual: null,
          message: `none of the ${anyOf.length} filters of anyOf holds`,
          alternatives,
        };
      },
    });
  }
  return checks;
}

const ofContract = (contracts: Set<string>, notification: Notification) =>
  contracts.has(bareHash(notification.contract));

const ofEvent = (events: Set<string> | null, notification: Notification) =>
  events === null || events.has(notification.eventName);

/** Whether the argument a filter key names is there and holds the condition. */
function conditionHolds(condition: Condition, argument: ArgumentOf): boolean {
  const at = argument(condition.key);
  return at !== null && condition.holds(at);
}

/** An argument of the notification by filter key, with the ABI type it has; null if it has none. */
type ArgumentOf = (key: string) => NotificationArgument | null;

/**
 * The follower compares each notification with every watcher of its contract: their conditions
 * share one reader of its arguments, each argument found and read once (notification-argument.ts).
 */
const readers = new WeakMap<Notification, { parameters: EventParameter[] | null; argument: ArgumentOf }>();

function argumentsOf(notification: Notification, parameters: EventParameter[] | null): ArgumentOf {
  const known = readers.get(notification);
  if (known && known.parameters === parameters) return known.argument;
  const items = stateItems(notification.state);
  const byKey = new Map<string, NotificationArgument | null>();
  const argument: ArgumentOf = (key) => {
    let at = byKey.get(key);
    if (at === undefined) {
      at = argumentAt(items, parameters, key);
      byKey.set(key, at);
    }
    return at;
  };
  readers.set(notification, { parameters, argument });
  return argument;
}

function argumentAt(items: StackItem[], parameters: EventParameter[] | null, key: string) {
  const index = parameters ? parameters.findIndex((parameter) => parameter.name === key) : position(key);
  const item = items[index];
  return item ? new NotificationArgument(item, parameters ? parameters[index]!.type : null) : null;
}

function filterCheck(condition: Condition, argument: ArgumentOf): Check {
  return {
    holds: () => conditionHolds(condition, argument),
    reason: () => {
      const at = argument(condition.key);
      const actual = at ? at.value : undefined;
      const message = at
        ? `filter key ${condition.key}: expected ${show(condition.expected)}, got ${show(actual)}`
        : `filter key ${condition.key}: the event has no such argument`;
      return { condition: 'filter', key: condition.key, expected: condition.expected, actual: actual ?? null, message };
    },
  };
}

/** A transaction trigger's sender and contracts, read once per trigger object, as filters are. */
const transactionTriggers = new WeakMap<TransactionTrigger, { sender: string | null; contracts: Set<string> | null }>();

function parsedTransaction(trigger: TransactionTrigger) {
  let known = transactionTriggers.get(trigger);
  if (!known) {
    known = {
      // A sender as a trigger names it (address or script hash), as `0x` and lower-case hex; null if neither.
      sender: trigger.sender === undefined ? null : normalizeHash160(trigger.sender),
      contracts: trigger.scriptHash === undefined ? null : new Set(listOf(trigger.scriptHash).map(bareHash)),
    };
    transactionTriggers.set(trigger, known);
  }
  return known;
}

function transactionChecks(trigger: TransactionTrigger, transaction: BlockTransaction): Check[] {
  const checks: Check[] = [];
  const { sender: expected, contracts } = parsedTransaction(trigger);
  if (trigger.sender !== undefined) {
    checks.push({
      holds: () => expected === transaction.sender,
      reason: () => ({
        condition: 'sender',
        expected: trigger.sender,
        actual: transaction.sender,
        message: `the transaction was sent by ${transaction.sender}, not ${trigger.sender!}`,
      }),
    });
  }
  const called = transaction.calls.filter((call) => !contracts || contracts.has(bareHash(call.scriptHash)));
  if (contracts) {
    checks.push({
      holds: () => called.length > 0,
      reason: () => ({
        condition: 'contract',
        expected: trigger.scriptHash,
        actual: [...new Set(transaction.calls.map((call) => call.scriptHash))],
        message: `the transaction calls no contract of ${describe(trigger.scriptHash)}`,
      }),
    });
  }
  if (trigger.operation !== undefined) {
    checks.push({
      holds: () => called.some((call) => call.operation === trigger.operation),
      reason: () => ({
        condition: 'operation',
        expected: trigger.operation,
        actual: called.map((call) => call.operation),
        message: `the transaction calls no ${trigger.operation!}${contracts ? ` of ${describe(trigger.scriptHash)}` : ''}`,
      }),
    });
  }
  if (trigger.vmState !== undefined) {
    // Not read yet: the follower reads outcomes only of transactions whose other conditions hold.
    checks.push({
      holds: () => transaction.vmState === null || transaction.vmState === trigger.vmState,
      reason: () => ({
        condition: 'vmState',
        expected: trigger.vmState,
        actual: transaction.vmState,
        message: `the transaction ended in ${transaction.vmState}, not ${trigger.vmState!}`,
      }),
    });
  }
  return checks;
}

function bareHash(hash: string): string {
  return hash.toLowerCase().replace(/^0x/, '');
}

function position(key: string): number {
  return /^\d+$/.test(key) ? Number(key) : -1;
}

const describe = (value: string | string[] | undefined) =>
  Array.isArray(value) ? `any of ${value.join(', ')}` : String(value);

/** A value in a message: JSON, cut short (a filter value is up to 1 KiB). */
function show(value: unknown): string {
  const text = JSON.stringify(value) ?? 'nothing';
  return text.length > 120 ? `${text.slice(0, 120)}…` : text;
}
