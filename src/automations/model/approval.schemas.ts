import { z } from 'zod';
import { gasLimit } from '../../chain/gas-budget.ts';
import { integerIn } from '../../wire/integer-in.ts';

/** How long a run may wait for its approvals: at least a second, at most a week. */
const approvalTimeoutBounds = { minMs: 1_000, maxMs: 7 * 24 * 3_600_000 } as const;

const unitMs = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
const durationPattern = /^(\d{1,7})(s|m|h|d)$/;

/** `"90m"` in milliseconds; null for text that is not a whole number of s, m, h or d. */
export function durationMs(text: string): number | null {
  const match = durationPattern.exec(text);
  if (!match) return null;
  return Number(match[1]) * unitMs[match[2] as keyof typeof unitMs];
}

const timeoutMessage = 'must be a duration such as "30s", "90m", "1h" or "2d", from 1 second to 7 days';

const approvalTimeout = z
  .string({ error: timeoutMessage })
  .max(16, timeoutMessage)
  .refine((text) => {
    const ms = durationMs(text);
    return ms !== null && ms >= approvalTimeoutBounds.minMs && ms <= approvalTimeoutBounds.maxMs;
  }, timeoutMessage);

/**
 * When a run waits: `always` (the default without `when`), or only when its transaction's fee
 * (system and network fees together) is above `feeAbove` GAS.
 */
const approvalWhen = z
  .strictObject(
    {
      feeAbove: gasLimit.optional().describe("Wait only when the fee of the run's transaction is above this, in GAS."),
      always: z.literal(true, { error: 'must be true' }).optional().describe('Wait for every run.'),
    },
    { error: 'must be an object with feeAbove or always' },
  )
  .refine(
    (when) => (when.feeAbove === undefined) !== (when.always === undefined),
    'must set one of feeAbove or always',
  );

/**
 * Approvals before signing (docs/api.md, "Approvals"): once its calls and exact fees are known, a
 * run waits, unsigned, for `required` keys holding `approvals:write` (never the key that created
 * or last changed the automation) to approve it, or one to reject it, for at most `timeout`.
 */
export const approvalSchema = z
  .strictObject(
    {
      required: integerIn(1, 5).describe('How many distinct keys must approve a run.'),
      timeout: approvalTimeout.describe(
        'How long a run waits for its approvals before it ends `ApprovalExpired`: `<n>s`, `<n>m`, `<n>h` or `<n>d`, at most 7 days.',
      ),
      when: approvalWhen.optional(),
    },
    { error: 'must be an object with required and timeout' },
  )
  .meta({ id: 'ApprovalRule' });

export type ApprovalRule = z.infer<typeof approvalSchema>;
