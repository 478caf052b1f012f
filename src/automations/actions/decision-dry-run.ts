import { callsScript, type ContractCall } from '../../chain/contract-calls.ts';
import type { NeoRpc } from '../../chain/rpc.ts';
import { signedBy } from '../../chain/transaction.ts';
import type { ExecuteRules } from '../model/action.schemas.ts';
import { readDecision } from './decision.ts';
import type { FirePayload } from '../model/run.entity.ts';

/** What the node says of calls run without signing or persisting anything. */
export interface TestInvocation {
  vmState: string;
  gasConsumed: string;
  exception: string | null;
}

/** What a function's result decides, as a run would read it, with its calls test-invoked. */
export type DryDecision =
  | { calls: ContractCall[]; testInvocation?: TestInvocation }
  | { skipped: string }
  | { error: { name: string; message: string } };

/**
 * Reads a completed run's result as the decision of an action with `execute`, its templates
 * resolved against `trigger` as a run's are; with `test`, test-invokes the one script its calls
 * make (as `signer`, a hex script hash, when given), sending nothing. `failed` where a run would
 * fail: an invalid decision, or a test invocation that faults. `neoflow fn run --execute` and the
 * automations' test call both read decisions here.
 */
export async function dryRunDecision(
  result: unknown,
  execute: ExecuteRules,
  trigger: FirePayload,
  test: { neo: NeoRpc; signer: string | undefined } | undefined,
): Promise<{ decision: DryDecision; failed: boolean }> {
  const decision = readDecision(result, execute, trigger);
  if (decision.kind === 'skip') return { decision: { skipped: decision.reason }, failed: false };
  if (decision.kind === 'invalid') return { decision: { error: decision.error }, failed: true };
  const { calls } = decision;
  if (!test) return { decision: { calls }, failed: false };
  const testInvocation = await testInvoke(test.neo, calls, test.signer);
  return { decision: { calls, testInvocation }, failed: testInvocation.vmState !== 'HALT' };
}

/** Test-invokes the one script `calls` make, as `signer` (hex script hash) when given. */
export async function testInvoke(
  neo: NeoRpc,
  calls: ContractCall[],
  signer: string | undefined,
): Promise<TestInvocation> {
  const invocation = await neo.invokeScript(callsScript(calls), signer === undefined ? [] : signedBy(signer));
  return { vmState: invocation.state, gasConsumed: invocation.gasconsumed, exception: invocation.exception ?? null };
}
