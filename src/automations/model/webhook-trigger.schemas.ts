import { z } from 'zod';
import { integerIn } from '../../wire/integer-in.ts';
import { secretName } from '../../secrets/secrets.schemas.ts';

/**
 * The `webhook` trigger (issue 49): an outside system starts a run by POSTing JSON to the
 * automation's own URL under `/v1/hooks/`, with its token or an HMAC of the body as the credential
 * (src/automations/hooks/). `url` and `token` are the service's: answered, never taken.
 */

const headerName = z
  .string({ error: 'must be a string' })
  .regex(/^[A-Za-z0-9-]{1,64}$/, 'must be an HTTP header name of at most 64 letters, digits and hyphens');

/** Headers that carry credentials: never copied into a run (its record, a function's params). */
export const credentialHeaders = ['authorization', 'x-neoflow-token', 'cookie', 'proxy-authorization'];

/** Headers every run of a webhook receives beside those its trigger names. */
const alwaysCopied = ['content-type', 'user-agent'];

/** The headers a webhook's runs receive in `trigger.headers`, by their lower-case names. */
export const copiedHeaderNames = (trigger: { headers?: string[] }): string[] => [
  ...new Set([...alwaysCopied, ...(trigger.headers ?? []).map((name) => name.toLowerCase())]),
];

const hmacAlgorithms = ['sha256', 'sha512'] as const;

const hookAuth = z
  .discriminatedUnion(
    'type',
    [
      z.strictObject({ type: z.literal('token') }),
      z.strictObject({
        type: z.literal('hmac'),
        secret: secretName.describe("The name of the account's secret whose value is the HMAC key."),
        header: headerName.default('X-Signature').describe('The header holding the hex signature, `sha256=` optional.'),
        algorithm: z.enum(hmacAlgorithms, { error: 'must be sha256 or sha512' }).default('sha256'),
        timestampHeader: headerName
          .optional()
          .describe('A header holding the send time in Unix seconds; signed as `<timestamp>.<body>` then.'),
        toleranceSeconds: integerIn(1, 3600)
          .optional()
          .describe('How far the timestamp may be from the service clock (default 300).'),
      }),
    ],
    { error: 'must be {type: "token"} or {type: "hmac", secret}' },
  )
  .meta({ id: 'WebhookAuth' });

/** A dot path inside the JSON body, at most 4 deep: the body field whose value names a delivery. */
const bodyPath = z
  .string({ error: 'must be a string' })
  .regex(/^[A-Za-z0-9_]{1,64}(\.[A-Za-z0-9_]{1,64}){0,3}$/, 'must be a dot path in the body, such as "event.id"');

export const webhookTrigger = z
  .strictObject({
    type: z.literal('webhook'),
    auth: hookAuth,
    headers: z
      .array(headerName, { error: 'must be a list of header names' })
      .max(16, 'must name at most 16 headers')
      .refine((names) => !names.some((name) => credentialHeaders.includes(name.toLowerCase())), {
        message: `must not name a credential header (${credentialHeaders.join(', ')})`,
      })
      .optional()
      .describe('Headers copied into `trigger.headers` beside content-type and user-agent.'),
    dedupField: bodyPath
      .optional()
      .describe('A body field whose value, like an `Idempotency-Key`, makes a repeat answer the same run for 24 h.'),
    url: z
      .string()
      .optional()
      .describe('The path to POST to, under /v1/hooks/: set by the service, ignored when sent.'),
    token: z
      .string()
      .optional()
      .describe(
        'The token, answered once by the create (and by `POST /automations/{id}/hook-token`); ignored when sent.',
      ),
  })
  .meta({ id: 'WebhookTrigger' });

export type WebhookTrigger = z.infer<typeof webhookTrigger>;
