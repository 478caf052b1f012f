import { isGrpcServiceError, ScheduleNotFoundError, type Client } from '@temporalio/client';
import type { EncryptionCodec } from './codec.ts';
import { ignore } from './ignore.ts';

interface Resealed {
  /** Schedules of the namespace looked at. */
  checked: number;
  /** Those whose stored payloads a previous key had sealed, now sealed under the current one. */
  resealed: string[];
}

/**
 * Seals again under the current payload key what each schedule stores (its action's arguments and
 * memo) where a previous key sealed it: every fire hands those payloads to a worker, which must
 * still open them once the previous key is gone. Updating a schedule with what it holds has the
 * client encode it anew. A schedule sealed otherwise (another application's, or under a key this
 * process does not hold) is left as it is, and one deleted since it was listed (the listing is
 * visibility's, which may lag a delete) is passed over: there is nothing left to seal.
 */
export async function resealSchedules(client: Client, codec: EncryptionCodec): Promise<Resealed> {
  const result: Resealed = { checked: 0, resealed: [] };
  for await (const listed of client.schedule.list()) {
    result.checked += 1;
    // Read raw, not through the codec: a schedule sealed under a key this process lacks cannot be
    // decoded, and is only to be left alone.
    const described = await client.workflowService
      .describeSchedule({ namespace: client.options.namespace, scheduleId: listed.scheduleId })
      .catch(ignoreNotFound);
    const start = described?.schedule?.action?.startWorkflow;
    const payloads = [...(start?.input?.payloads ?? []), ...Object.values(start?.memo?.fields ?? {})];
    if (!payloads.some((payload) => codec.sealedUnderPreviousKey(payload))) continue;
    const updated = await client.schedule
      .getHandle(listed.scheduleId)
      .update((current) => ({ ...current }))
      .then(() => true, ignore(ScheduleNotFoundError));
    if (updated) result.resealed.push(listed.scheduleId);
  }
  return result;
}

/** gRPC's NOT_FOUND: a raw describe of a schedule that is gone. */
const grpcNotFound = 5;

const ignoreNotFound = (error: unknown) => {
  if (isGrpcServiceError(error) && Number(error.code) === grpcNotFound) return undefined;
  throw error;
};
