import { executeSchema } from '../automations/automations.schemas.ts';
import { readDecision } from '../automations/decision.ts';
import type { FirePayload } from '../automations/run.entity.ts';
import { normalizeHash160 } from '../chain/contract-args.ts';
import { callsScript } from '../chain/contract-calls.ts';
import type { NeoRpc } from '../chain/rpc.ts';
import { signedBy } from '../chain/transaction.ts';

/** What `--execute` adds to `neoflow fn run`'s output, and whether the run would fail for it. */
export interface PrintedDecision {
  decision:
    | { calls: unknown[]; testInvocation?: { vmState: string; gasConsumed: string; exception: string | null } }
    | { skipped: string }
    | { error: { name: string; message: string } };
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
 * resolved against `params.trigger` as a run's are; with `neo`, test-invokes the one script its
 * calls make (as `signer` when given), sending nothing. It fails where the run would: an invalid
 * decision, or a test invocation that faults.
 */
export async function printedDecision(
  result: unknown,
  params: Record<string, unknown>,
  execute: ReturnType<typeof parseExecute>,
  test: { neo: NeoRpc; signer: string | undefined } | undefined,
): Promise<PrintedDecision> {
  const decision = readDecision(result, execute, triggerOf(params));
  if (decision.kind === 'skip') return { decision: { skipped: decision.reason }, failed: false };
  if (decision.kind === 'invalid') return { decision: { error: decision.error }, failed: true };
  const { calls } = decision;
  if (!test) return { decision: { calls }, failed: false };
  const signers = test.signer === undefined ? [] : signedBy(test.signer);
  const invocation = await test.neo.invokeScript(callsScript(calls), signers);
  const testInvocation = {
    vmState: invocation.state,
    gasConsumed: invocation.gasconsumed,
    exception: invocation.exception ?? null,
  };
  return { decision: { calls, testInvocation }, failed: invocation.state !== 'HALT' };
}

/** What fired the run, as `--params` gives it under `trigger`; a manual fire when it gives none. */
function triggerOf(params: Record<string, unknown>): FirePayload {
  const { trigger } = params;
  const given = typeof trigger === 'object' && trigger !== null && !Array.isArray(trigger);
  return given ? (trigger as FirePayload) : { type: 'manual' };
}
