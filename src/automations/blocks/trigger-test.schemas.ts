import { z } from 'zod';
import { integerIn } from '../../wire/integer-in.ts';

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

export type TestAutomation = z.infer<typeof testAutomationBody>;
