import type { FirePayload, NamedRunError } from '../model/run.entity.ts';
import type { Firing } from '../runs/fires.ts';
import { runErrorName } from '../../shared/outcomes.ts';

/**
 * A shared loop (the block follower of a network) never stops for one input. An input that cannot
 * be processed for one automation (a notification its filter cannot read, runs its database rows
 * refuse) is quarantined for that automation alone: its run is recorded ended, failed with this
 * error, so that its owner is told by its `failure` rules as for any failed run, and the loop goes
 * on. The other automations the input fires are recorded as usual.
 */
const quarantineErrorName = runErrorName.InputQuarantined;

/** What of an error's message a quarantined run keeps: its first line, this long at most. */
const reasonLength = 200;

/**
 * `firing` quarantined for `cause`: recorded as a failed run under the same fire key (so it stays
 * one run per cause), without the event's arguments, which may be what could not be processed.
 */
export function quarantine(firing: Firing, cause: unknown): Firing {
  const payload: FirePayload =
    firing.payload.type === 'blockchain' ? { ...firing.payload, state: null } : firing.payload;
  const error: NamedRunError = {
    name: quarantineErrorName,
    message: `${inputOf(firing.payload)} could not be processed for this automation: ${reasonOf(cause)}`,
  };
  return { ...firing, payload, error };
}

function inputOf(payload: FirePayload): string {
  if (payload.type === 'state') return `The read of ${payload.operation} at block ${payload.blockIndex}`;
  if (payload.type === 'transaction') return `Transaction ${payload.txHash} in block ${payload.blockIndex}`;
  if (payload.type !== 'blockchain') return `The ${payload.type} fire`;
  const container = payload.txHash ? `transaction ${payload.txHash}` : 'the block itself';
  return `Notification ${payload.notificationIndex} of ${container} in block ${payload.blockIndex}`;
}

function reasonOf(cause: unknown): string {
  const text = cause instanceof Error ? cause.message : String(cause);
  const line = text.split('\n', 1)[0]!.trim() || 'unknown error';
  return line.length > reasonLength ? `${line.slice(0, reasonLength).toWellFormed()}…` : line;
}
