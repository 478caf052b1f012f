import { z } from 'zod';
import { executionStatus } from '../../shared/outcomes.ts';

/** One condition that did not hold (explain-match.ts MatchReason). */
const reasonFields = {
  condition: z.enum(['contract', 'event', 'filter', 'anyOf', 'sender', 'operation', 'vmState']),
  key: z.string().optional().describe('The filter key (event argument) of a `filter` condition.'),
  expected: z.unknown().describe('What the trigger expected.'),
  actual: z.unknown().describe('What the notification or transaction had.'),
  message: z.string(),
};
const reasonSchema = z.strictObject({
  ...reasonFields,
  alternatives: z
    .array(z.array(z.strictObject(reasonFields)))
    .optional()
    .describe('anyOf: why each of its filters did not hold, in order.'),
});

const logLine = z.strictObject({ level: z.string(), message: z.string(), timestamp: z.string() });
const testInvocation = z.strictObject({
  vmState: z.string(),
  gasConsumed: z.string(),
  exception: z.string().nullable(),
});
const callSchema = z.strictObject({
  scriptHash: z.string(),
  operation: z.string(),
  args: z.array(z.strictObject({ type: z.string(), value: z.unknown() })),
});
const namedError = z.strictObject({ name: z.string(), message: z.string() });

const dryRunSchema = z.union([
  z.strictObject({
    type: z.literal('function'),
    status: z.enum([executionStatus.completed, executionStatus.failed]),
    result: z.unknown().optional(),
    error: z.strictObject({ name: z.string(), message: z.string(), stack: z.string() }).optional(),
    logs: z.array(logLine),
    durationMs: z.number().int(),
    decision: z
      .union([
        z.strictObject({ calls: z.array(callSchema), testInvocation: testInvocation.optional() }),
        z.strictObject({ skipped: z.string() }),
        z.strictObject({ error: namedError }),
      ])
      .optional()
      .describe('A function action with execute: what its result decides, its calls test-invoked.'),
  }),
  z.strictObject({ type: z.literal('contract'), calls: z.array(callSchema), testInvocation }),
  z.strictObject({ type: z.literal('contract'), error: namedError }),
  z.strictObject({ type: z.literal('webhook'), sent: z.literal(false) }),
]);

/** The answer of `POST /automations/{id}/test` (automation-test.ts). */
export const testAnswerSchema = z
  .strictObject({
    matched: z.boolean(),
    checked: z
      .array(
        z.strictObject({
          txHash: z.string().nullable(),
          blockIndex: z.number().int(),
          notificationIndex: z.number().int().optional(),
          contract: z.string().optional(),
          eventName: z.string().optional(),
          matched: z.boolean(),
          reasons: z.array(reasonSchema).optional(),
        }),
      )
      .describe('The notifications or transactions matched, in chain order: the first 50.'),
    checkedTotal: z.number().int(),
    fire: z
      .record(z.string(), z.unknown())
      .optional()
      .describe('What a run would have been given: the first match, or the payload given.'),
    dryRun: dryRunSchema.optional().describe('What the action would do with `fire`: nothing recorded, signed or sent.'),
  })
  .meta({ id: 'AutomationTestResult' });
