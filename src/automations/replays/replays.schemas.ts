import { z } from 'zod';
import { integerIn } from '../../wire/integer-in.ts';
import { isoTime } from '../../wire/response-schemas.ts';
import { replayStatuses } from '../../shared/outcomes.ts';

/** The most blocks one replay reads: at two RPC calls a block, minutes of the node's time. */
export const maxReplayBlocks = 100_000;

/** NeoVM block indexes are uint32; PostgreSQL's integer holds what a chain reaches in decades. */
const blockIndex = integerIn(0, 2 ** 31 - 1);

export const createReplayBody = z
  .strictObject({
    fromBlock: blockIndex,
    toBlock: blockIndex,
    dryRun: z.boolean({ error: 'must be a boolean' }).default(false),
  })
  .refine((body) => body.toBlock >= body.fromBlock, { message: 'must not be below fromBlock', path: ['toBlock'] })
  .refine((body) => body.toBlock - body.fromBlock < maxReplayBlocks, {
    message: `must be at most ${maxReplayBlocks} blocks after fromBlock, counting both`,
    path: ['toBlock'],
  })
  .meta({ id: 'ReplayCreate' });

export type CreateReplay = z.infer<typeof createReplayBody>;

const listedMatch = z.strictObject({
  blockIndex: z.number().int(),
  txHash: z.string().nullable(),
  notificationIndex: z.number().int(),
  state: z.unknown(),
});

export const replaySchema = z
  .strictObject({
    id: z.string(),
    automationId: z.string(),
    status: z.enum(replayStatuses),
    dryRun: z.boolean(),
    fromBlock: z.number().int(),
    toBlock: z.number().int(),
    blocksDone: z.number().int(),
    blocksTotal: z.number().int(),
    matchCount: z.number().int().describe('Notifications in the blocks done that match the trigger.'),
    runsStarted: z
      .number()
      .int()
      .describe(
        'Runs this replay recorded and started; a match that had fired before (live, or an earlier replay) is not one.',
      ),
    matches: z
      .array(listedMatch)
      .optional()
      .describe('A dry run only: its matches in chain order, the first 100 at most (see matchesTruncated).'),
    matchesTruncated: z.boolean().optional().describe('A dry run only: it matched more than it lists.'),
    error: z.strictObject({ name: z.string(), message: z.string() }).nullable(),
    createdAt: isoTime,
    completedAt: isoTime.nullable(),
  })
  .meta({ id: 'Replay' });

export type ReplayView = z.infer<typeof replaySchema>;
