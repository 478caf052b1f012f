import { z } from 'zod';
import { integerIn } from '../../wire/integer-in.ts';
import { paginationQuery } from '../../wire/pagination.ts';
import { contractArgsSchema, hash160Pattern, normalizeHash160, vmIntegerPattern } from '../../chain/contract-args.ts';
import { filterSchema, maxListed } from './filter.schemas.ts';
import { templatedContractArgs } from './arg-templates.ts';
import { credentialUrl, notifySchema, webhookTarget } from './notify.schemas.ts';
import { InvalidCronError, scheduleCron } from './cron.ts';
import { decimalPattern, maxDecimalChars } from '../../chain/decimal.ts';
import { isTimeZone } from './time-zones.ts';
import { budgetSchema } from '../../chain/gas-budget.ts';
import { stateConditions, statePathPattern } from './state-trigger-value.ts';
import { runStatus } from '../../shared/outcomes.ts';

const automationStatuses = ['active', 'inactive', 'error'] as const;
const triggerTypes = ['schedule', 'blockchain', 'transaction', 'price', 'state'] as const;
export type AutomationStatus = (typeof automationStatuses)[number];
export type TriggerType = (typeof triggerTypes)[number];

/** A validation failure that the contract gives its own code (`INVALID_CRON`, `INVALID_SCRIPT_HASH`). */
const coded = (errorCode: string, message: string) => ({ code: 'custom' as const, message, params: { errorCode } });

const text = (max: number) =>
  z.string({ error: 'must be a string' }).min(1, 'must not be empty').max(max, `must be at most ${max} characters`);

const scriptHash = z.string({ error: 'must be a string' }).superRefine((value, ctx) => {
  if (!hash160Pattern.test(value)) {
    ctx.addIssue(coded('invalid_script_hash', 'must be 0x followed by 40 hexadecimal characters'));
  }
});

const cron = z.string({ error: 'must be a string' }).superRefine((value, ctx) => {
  try {
    scheduleCron(value);
  } catch (error) {
    if (!(error instanceof InvalidCronError)) throw error;
    ctx.addIssue(coded('invalid_cron', `is not a valid cron expression: ${error.message}`));
  }
});

const priceSource = z
  .union(
    [
      z.strictObject({ preset: z.enum(['coingecko', 'binance'], { error: 'must be coingecko or binance' }) }),
      z.strictObject({ url: credentialUrl, path: text(256), timestampPath: text(256).optional() }),
    ],
    { error: 'must be {preset} or {url, path, timestampPath?}' },
  )
  .meta({ id: 'PriceSource' });

const scheduleTrigger = z
  .strictObject({
    type: z.literal('schedule'),
    cron,
    timezone: z
      .string({ error: 'must be a string' })
      .refine(isTimeZone, 'must be an IANA time zone name, such as Europe/Berlin')
      .optional(),
  })
  .meta({ id: 'ScheduleTrigger' });

/** A value or a list of at most 16 distinct values: a trigger's contracts, its events. */
const oneOrList = <T extends z.ZodType<string>>(item: T, what: string) =>
  z.union([
    item,
    z
      .array(item, { error: `must be one ${what} or a list of them` })
      .min(1, `must name at least one ${what}`)
      .max(maxListed, `must name at most ${maxListed} ${what}s`)
      .refine(
        (list) => new Set(list.map((value) => value.toLowerCase())).size === list.length,
        `must name each ${what} once`,
      ),
  ]);

const blockchainTrigger = z
  .strictObject({
    type: z.literal('blockchain'),
    scriptHash: oneOrList(scriptHash, 'contract'),
    event: oneOrList(text(32), 'event').optional(),
    filter: filterSchema.optional(),
    /** At least one of these filters holds too (beside `filter`). */
    anyOf: z
      .array(filterSchema, { error: 'must be a list of filters' })
      .min(1, 'must hold at least one filter')
      .max(maxListed, `must hold at most ${maxListed} filters`)
      .optional(),
  })
  .meta({ id: 'BlockchainTrigger' });

const sender = z.string({ error: 'must be a string' }).superRefine((value, ctx) => {
  if (normalizeHash160(value) === null) ctx.addIssue('must be a Neo N3 address or a 0x script hash');
});

/**
 * Fires on the transactions of a block, FAULTed ones included, that `sender` sent and that call
 * `operation` of (one of) `scriptHash`. Named by a sender or a contract: every transaction of the
 * chain is not a trigger.
 */
const transactionTrigger = z
  .strictObject({
    type: z.literal('transaction'),
    sender: sender.optional(),
    scriptHash: oneOrList(scriptHash, 'contract').optional(),
    operation: text(64).optional(),
    vmState: z.enum(['HALT', 'FAULT'], { error: 'must be HALT or FAULT' }).optional(),
  })
  .refine((trigger) => trigger.sender !== undefined || trigger.scriptHash !== undefined, {
    message: 'must name a sender or a scriptHash',
  })
  .meta({ id: 'TransactionTrigger' });

const priceTrigger = z
  .strictObject({
    type: z.literal('price'),
    asset: z
      .string({ error: 'must be a string' })
      .regex(/^[A-Z0-9]{1,16}$/, 'must be an upper-case symbol such as NEO'),
    condition: z.enum(['above', 'below'], { error: 'must be above or below' }),
    value: z
      .string({ error: 'must be a string' })
      .max(maxDecimalChars, `must be at most ${maxDecimalChars} characters`)
      .regex(decimalPattern, 'must be a decimal number such as "12.5"'),
    currency: z.string({ error: 'must be a string' }).regex(/^[A-Z]{2,10}$/, 'must be an upper-case code such as USD'),
    source: priceSource.optional(),
    /** Seconds between two reads of the price. */
    pollInterval: integerIn(1, 86_400).optional(),
    /** Seconds after which a price is too old to fire. */
    maxAge: integerIn(1, 86_400).optional(),
  })
  .meta({ id: 'PriceTrigger' });

// Read by the follower at the chain's head (state-trigger-follow.ts): every part bounded here.
const stateTrigger = z
  .strictObject({
    type: z.literal('state'),
    scriptHash,
    operation: text(64),
    args: contractArgsSchema()
      .describe('At most 16 {type, value} arguments, as a contract action takes them (no templates).')
      .default([]),
    path: z
      .string({ error: 'must be a string' })
      .max(40, 'must be at most 40 characters')
      .regex(statePathPattern, 'must be up to 8 item indices separated by dots, such as "0" or "2.1"')
      .optional()
      .describe('Where the value is inside the returned Array or Struct; without it, the returned value itself.'),
    condition: z.enum(stateConditions, { error: 'must be above, below, equals or changed' }),
    value: z
      .string({ error: 'must be a string' })
      // One check: the pattern bounds the text BigInt parses, and zod runs every check of a field.
      .refine(
        (value) => vmIntegerPattern.test(value) && BigInt(value) >= -(2n ** 255n) && BigInt(value) < 2n ** 255n,
        'must be a whole number as a string that fits in 256 bits, such as "100000000"',
      )
      .optional()
      .describe('The threshold, compared as a big integer; required unless the condition is changed.'),
    everyBlocks: integerIn(1, 1000)
      .optional()
      .describe('Evaluated once in each window of this many blocks (default 1: every block).'),
  })
  .superRefine((trigger, ctx) => {
    if (trigger.condition !== 'changed' && trigger.value === undefined) {
      ctx.addIssue({
        code: 'custom',
        message: `is required when the condition is ${trigger.condition}`,
        path: ['value'],
      });
    }
    if (trigger.condition === 'changed' && trigger.value !== undefined) {
      ctx.addIssue({ code: 'custom', message: 'is not taken when the condition is changed', path: ['value'] });
    }
  })
  .meta({ id: 'StateTrigger' });

/** The message of a tagged union: on its `type` when the tag is wrong, else on the whole value. */
const unionError = (types: string) => (issue: { code?: string }) =>
  issue.code === 'invalid_union' ? `must be ${types}` : `must be an object whose type is ${types}`;

export const triggerSchema = z
  .discriminatedUnion('type', [scheduleTrigger, blockchainTrigger, transactionTrigger, priceTrigger, stateTrigger], {
    error: unionError('schedule, blockchain, transaction, price or state'),
  })
  .meta({ id: 'Trigger' });

/** How many calls a sending function may decide in one run: the most, and the default bound. */
const maxDecidedCalls = 16;
const maxAllowedContracts = 16;

/**
 * What a function action may send: the calls its function decides (docs/functions.md), each to
 * one of `allowedContracts`, at most `maxCalls` of them, joined into one transaction.
 */
export const executeSchema = z
  .strictObject({
    allowedContracts: z
      .array(scriptHash, { error: 'must be an array of contract script hashes' })
      .min(1, 'must name at least one contract')
      .max(maxAllowedContracts, `must name at most ${maxAllowedContracts} contracts`)
      .refine(
        (hashes) => new Set(hashes.map((hash) => hash.toLowerCase())).size === hashes.length,
        'must name each contract once',
      ),
    maxCalls: integerIn(1, maxDecidedCalls).default(4),
  })
  .meta({ id: 'ExecuteRules' });

const functionAction = z
  .strictObject({
    type: z.literal('function'),
    functionId: text(255),
    /** Pins the function's version the action runs; without it, the function's current one. */
    functionVersion: integerIn(1, 999_999_999).optional(),
    parameters: z.record(z.string(), z.unknown(), { error: 'must be an object' }).default({}),
    execute: executeSchema.optional(),
  })
  .meta({ id: 'FunctionAction' });

const contractAction = z
  .strictObject({
    type: z.literal('contract'),
    scriptHash,
    operation: text(64),
    // A value may be a template of the trigger, resolved at fire time (arg-templates.ts).
    args: templatedContractArgs()
      .describe(
        'At most 16 {type, value} arguments (Hash160, Integer, String, Boolean, ByteArray, Hash256, PublicKey, Array, Any). ' +
          'A value may be exactly a template {{trigger.<path>}} (e.g. {{trigger.state.amount}}), resolved against what fired the run and then checked as a static value; see docs/api.md.',
      )
      .default([]),
  })
  .meta({ id: 'ContractAction' });

/** POSTs what fired the run to a URL of the tenant's, signed with one of its secrets. */
const webhookAction = z.strictObject({ type: z.literal('webhook'), ...webhookTarget }).meta({ id: 'WebhookAction' });

export const actionSchema = z
  .discriminatedUnion('type', [functionAction, contractAction, webhookAction], {
    error: unionError('function, contract or webhook'),
  })
  .meta({ id: 'Action' });

/** Whether an action's runs sign and send transactions, paid by the account's signer. */
export const sendsTransactions = (action: Action) =>
  action.type === 'contract' || (action.type === 'function' && action.execute !== undefined);

const settableStatus = z.enum(['active', 'inactive'], { error: 'must be active or inactive' });

export const createAutomationBody = z
  .strictObject({
    name: text(128),
    status: settableStatus.default('active'),
    trigger: triggerSchema,
    action: actionSchema,
    notify: notifySchema.default([]),
    /** Only for an action that sends (budget-rules.ts sendsTransactions). */
    budget: budgetSchema.optional(),
  })
  .meta({ id: 'AutomationCreate' });

export const updateAutomationBody = z
  .strictObject({
    name: text(128).optional(),
    status: settableStatus.optional(),
    trigger: triggerSchema.optional(),
    action: actionSchema.optional(),
    notify: notifySchema.optional(),
    /** null: the account's default budget holds again. */
    budget: budgetSchema.nullable().optional(),
    /** With `status: 'active'` of a blockchain automation: where its matching resumes (replays.service.ts). */
    resumeFrom: z
      .union([z.enum(['lastProcessed', 'current']), integerIn(0, 2 ** 31 - 1)], {
        error: "must be 'lastProcessed', 'current' or a block index",
      })
      .optional(),
  })
  .refine((body) => Object.keys(body).length > 0, { message: 'body names no field to change' })
  .refine((body) => body.resumeFrom === undefined || body.status === 'active', {
    message: "applies only with status: 'active'",
    path: ['resumeFrom'],
  })
  .meta({ id: 'AutomationUpdate' });

export const listAutomationsQuery = z.strictObject({
  ...paginationQuery(20),
  status: z.enum(automationStatuses, { error: 'must be active, inactive or error' }).optional(),
  triggerType: z.enum(triggerTypes, { error: 'must be schedule, blockchain, transaction, price or state' }).optional(),
});

/** What a test payload may weigh, as JSON: a fire payload is far smaller. */
const maxTestPayloadChars = 16_384;

/** `POST /automations/{id}/test`: a transaction, a block, or a fire payload of one's own. */
export const testAutomationBody = z
  .strictObject({
    txHash: z
      .string({ error: 'must be a string' })
      .regex(/^0x[0-9a-fA-F]{64}$/, 'must be 0x followed by 64 hexadecimal characters')
      .optional(),
    blockIndex: integerIn(0, 2 ** 32 - 1).optional(),
    payload: z
      .record(z.string(), z.unknown(), { error: 'must be an object' })
      .refine(
        (payload) => JSON.stringify(payload).length <= maxTestPayloadChars,
        `must be at most ${maxTestPayloadChars} characters as JSON`,
      )
      .optional(),
  })
  .refine((body) => [body.txHash, body.blockIndex, body.payload].filter((given) => given !== undefined).length === 1, {
    message: 'must give exactly one of txHash, blockIndex or payload',
  })
  .meta({ id: 'AutomationTestRequest' });

export const listRunsQuery = z.strictObject({
  ...paginationQuery(20),
  status: z
    .enum([runStatus.running, runStatus.success, runStatus.failure], { error: 'must be running, success or failure' })
    .optional(),
});

export type Trigger = z.infer<typeof triggerSchema>;
export type ScheduleTrigger = z.infer<typeof scheduleTrigger>;
export type PriceTrigger = z.infer<typeof priceTrigger>;
export type BlockchainTrigger = z.infer<typeof blockchainTrigger>;
export type StateTrigger = z.infer<typeof stateTrigger>;
export type TransactionTrigger = z.infer<typeof transactionTrigger>;
/** What the block follower matches in a block: a notification's trigger or a transaction's. */
export type FollowedTrigger = BlockchainTrigger | TransactionTrigger;
export type Action = z.infer<typeof actionSchema>;
export type FunctionAction = z.infer<typeof functionAction>;
export type ExecuteRules = z.infer<typeof executeSchema>;
export type CreateAutomation = z.infer<typeof createAutomationBody>;
export type UpdateAutomation = z.infer<typeof updateAutomationBody>;
export type ListAutomations = z.infer<typeof listAutomationsQuery>;
export type ListRuns = z.infer<typeof listRunsQuery>;
export type TestAutomation = z.infer<typeof testAutomationBody>;
