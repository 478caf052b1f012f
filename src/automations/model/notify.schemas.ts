import { z } from 'zod';
import { httpUrl } from '../../wire/http-url.ts';
import { integerIn } from '../../wire/integer-in.ts';
import { secretName } from '../../secrets/secrets.schemas.ts';
import { runStatus } from '../../shared/outcomes.ts';

/**
 * Headers the transport or Neoflow sets itself, or that would change how the receiver reads the
 * body we sign (`Content-Encoding`, `Content-Range`): a tenant's value would be ignored, would
 * forge ours or would garble the delivery.
 */
const reservedHeaders = new Set(['host', 'transfer-encoding', 'connection']);
const isReserved = (name: string) => reservedHeaders.has(name.toLowerCase()) || /^(content|neoflow)-/i.test(name);

/** Extra headers of a webhook, such as a receiver's own token: printable ASCII, 16 at most. */
const webhookHeaders = z
  .record(
    z
      .string()
      .regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,64}$/, 'header names must be HTTP tokens of at most 64 characters')
      .refine((name) => !isReserved(name), 'header names must not be Host, Content-*, Connection or Neoflow-*'),
    z
      .string({ error: 'values must be strings' })
      .max(1024, 'values must be at most 1024 characters')
      .regex(/^[\x20-\x7e\t]*$/, 'values must be printable ASCII'),
    { error: 'must be an object of string values' },
  )
  .refine((headers) => Object.keys(headers).length <= 16, 'must hold at most 16 headers');

const writeOnly = 'Write-only: answered masked (docs/api.md, "Credentials"); a mask sent back keeps the value stored.';

/** A URL that is a credential (a Slack or Discord webhook, a price source with its API key). */
export const credentialUrl = httpUrl.describe(writeOnly);

/**
 * Where a signed POST goes: a webhook action and a webhook channel alike. `signingSecret` names one
 * of the account's secrets; its value keys the signature and is never shown or sent.
 */
export const webhookTarget = {
  url: credentialUrl,
  headers: webhookHeaders.optional().describe(`Header values are a receiver's tokens. ${writeOnly}`),
  signingSecret: secretName,
};

const channelSchema = z
  .discriminatedUnion(
    'type',
    [
      z.strictObject({ type: z.literal('webhook'), ...webhookTarget }).meta({ id: 'WebhookChannel' }),
      z.strictObject({ type: z.literal('slack'), url: credentialUrl }).meta({ id: 'SlackChannel' }),
      z.strictObject({ type: z.literal('discord'), url: credentialUrl }).meta({ id: 'DiscordChannel' }),
      z
        .strictObject({
          type: z.literal('telegram'),
          /** The name of the secret holding the bot's token. */
          botTokenSecret: secretName,
          chatId: z
            .string({ error: 'must be a string' })
            .regex(/^(-?\d{1,20}|@[A-Za-z0-9_]{5,32})$/, 'must be a numeric chat id or an @channel name'),
        })
        .meta({ id: 'TelegramChannel' }),
    ],
    {
      error: (issue) =>
        issue.code === 'invalid_union'
          ? 'must be webhook, slack, discord or telegram'
          : 'must be an object whose type is webhook, slack, discord or telegram',
    },
  )
  .meta({ id: 'Channel' });

export const notifyEvents = [runStatus.failure, 'recovery', 'error', 'low_gas', 'approval_requested'] as const;
export type NotifyEvent = (typeof notifyEvents)[number];

const gasAmount = z
  .string({ error: 'must be a string' })
  .regex(/^\d{1,12}(\.\d{1,8})?$/, 'must be an amount of GAS such as "5" or "0.5" (at most 8 decimals)');

const ruleSchema = z
  .strictObject({
    on: z
      .array(z.enum(notifyEvents, { error: 'must be failure, recovery, error, low_gas or approval_requested' }), {
        error: 'must be an array of events',
      })
      .min(1, 'must name at least one event')
      .refine((events) => new Set(events).size === events.length, 'must not name an event twice'),
    channel: channelSchema,
    /** `failure` is sent after this many failed runs in a row (1 by default). */
    afterFailures: integerIn(1, 1000).optional(),
    /** `low_gas` is sent when the account's signer holds less than this. */
    belowGas: gasAmount.optional(),
  })
  .superRefine((rule, ctx) => {
    const lowGas = rule.on.includes('low_gas');
    if (lowGas && rule.belowGas === undefined) {
      ctx.addIssue({ code: 'custom', path: ['belowGas'], message: 'is required when on names low_gas' });
    }
    if (!lowGas && rule.belowGas !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['belowGas'], message: 'applies only when on names low_gas' });
    }
  })
  .meta({ id: 'NotifyRule' });

/** Who is told what about an automation: at most 10 rules, each one channel and its events. */
export const notifySchema = z
  .array(ruleSchema, { error: 'must be an array of rules' })
  .max(10, 'must hold at most 10 rules');

export type NotifyRule = z.infer<typeof ruleSchema>;
export type Channel = z.infer<typeof channelSchema>;
