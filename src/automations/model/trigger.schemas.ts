import { z } from 'zod';
import { integerIn } from '../../wire/integer-in.ts';
import { contractArgsSchema, normalizeHash160, vmIntegerPattern } from '../../chain/contract-args.ts';
import { decimalPattern, maxDecimalChars } from '../../chain/decimal.ts';
import { filterSchema, filterValueCount, maxFilterValues, maxListed } from './filter.schemas.ts';
import { credentialUrl } from './notify.schemas.ts';
import { InvalidCronError, scheduleCron } from './cron.ts';
import { isTimeZone } from './time-zones.ts';
import { stateConditions, statePathPattern } from './state-trigger-value.ts';
import { coded, scriptHash, text, unionError } from './field.schemas.ts';
import { webhookTrigger } from './webhook-trigger.schemas.ts';

/** What fires an automation: one schema a kind, joined in `triggerSchema`, tagged by `type`. */
export const triggerTypes = ['schedule', 'blockchain', 'transaction', 'price', 'state', 'webhook'] as const;
export type TriggerType = (typeof triggerTypes)[number];

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
  .superRefine((trigger, ctx) => {
    if (filterValueCount([trigger.filter, ...(trigger.anyOf ?? [])]) > maxFilterValues) {
      ctx.addIssue({
        code: 'custom',
        message: `filter and anyOf must hold at most ${maxFilterValues} values in all, each value of an in counting one`,
        path: [trigger.anyOf ? 'anyOf' : 'filter'],
      });
    }
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
      .describe(
        'At most 16 {type, value} arguments of at most 4,096 bytes as JSON, as a contract action takes them (no templates).',
      )
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

export const triggerSchema = z
  .discriminatedUnion(
    'type',
    [scheduleTrigger, blockchainTrigger, transactionTrigger, priceTrigger, stateTrigger, webhookTrigger],
    { error: unionError('schedule, blockchain, transaction, price, state or webhook') },
  )
  .meta({ id: 'Trigger' });

export type Trigger = z.infer<typeof triggerSchema>;
export type ScheduleTrigger = z.infer<typeof scheduleTrigger>;
export type PriceTrigger = z.infer<typeof priceTrigger>;
export type BlockchainTrigger = z.infer<typeof blockchainTrigger>;
export type StateTrigger = z.infer<typeof stateTrigger>;
export type TransactionTrigger = z.infer<typeof transactionTrigger>;
export type { WebhookTrigger } from './webhook-trigger.schemas.ts';
/** What the block follower matches in a block: a notification's trigger or a transaction's. */
export type FollowedTrigger = BlockchainTrigger | TransactionTrigger;
