import { executeSchema } from '../automations/model/action.schemas.ts';
import { dryRunDecision, type DryDecision } from '../automations/actions/decision-dry-run.ts';
import type { FirePayload } from '../automations/model/run.entity.ts';
import { normalizeHash160 } from '../chain/contract-args.ts';
import type { NeoRpc } from '../chain/rpc.ts';

/** What `--execute` adds to `neoflow fn run`'s output, and whether the run would fail for it. */
interface PrintedDecision {
  decision: DryDecision;
  failed: boolean;
}

/** `--execute` as the action's `execute` takes it, checked by the same schema. */
export function parseExecute(text: string) {
  let execute: unknown;
  try {
    execute = JSON.parse(text);
  } catch {
    throw new Error('--execute must be JSON, e.g. --execute \'{"allowedContracts":["0x…"],"maxCalls":2}\'');
  }
  const parsed = executeSchema.safeParse(execute);
  if (!parsed.success) {
    const [issue] = parsed.error.issues;
    throw new Error(`--execute ${[...(issue?.path ?? [])].join('.')} ${issue?.message ?? 'is invalid'}`.trim());
  }
  return parsed.data;
}

/** `--signer`: an address or 0x script hash, as the hex script hash a signer names. */
export function parseSigner(text: string): string {
  const hash = normalizeHash160(text);
  if (!hash) throw new Error('--signer must be a Neo N3 address or a 0x script hash');
  return hash.slice(2);
}

/**
 * Reads a completed run's result as the decision an action with `execute` would, its templates
 * resolved against `params.trigger` as a run's are; with `neo`, test-invokes its calls (as
 * `signer` when given), sending nothing (decision-dry-run.ts).
 */
export function printedDecision(
  result: unknown,
  params: Record<string, unknown>,
  execute: ReturnType<typeof parseExecute>,
  test: { neo: NeoRpc; signer: string | undefined } | undefined,
): Promise<PrintedDecision> {
  return dryRunDecision(result, execute, triggerOf(params), test);
}

/** What fired the run, as `--params` gives it under `trigger`; a manual fire when it gives none. */
function triggerOf(params: Record<string, unknown>): FirePayload {
  const { trigger } = params;
  const given = typeof trigger === 'object' && trigger !== null && !Array.isArray(trigger);
  return given ? (trigger as FirePayload) : { type: 'manual' };
}
