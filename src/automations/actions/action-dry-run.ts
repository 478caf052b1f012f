import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../../errors.ts';
import { AccountSlots } from '../../functions/account-slots.ts';
import { signerOrDefault } from '../../signers/signer-or-default.ts';
import { requestNetworkOf, type NetworkNodes } from '../../chain/network-of.ts';
import { FunctionDef } from '../../functions/function.entity.ts';
import { sandboxServices } from '../../functions/sandbox-services.ts';
import { functionFetch } from '../../functions/function-fetch.ts';
import { versionOf } from '../../functions/run-version.ts';
import type { EgressPolicy } from '../../egress/egress-policy.ts';
import { runInSandbox } from '../../sandbox/sandbox.ts';
import type { LogLine, SandboxError } from '../../sandbox/types.ts';
import type { MasterKeys } from '../../crypto/envelope.ts';
import { revealSecrets } from '../../secrets/secret-store.ts';
import type { Automation } from '../model/automation.entity.ts';
import { dryRunDecision, testInvoke, type DryDecision, type TestInvocation } from './decision-dry-run.ts';
import { resolveCalls } from './resolve-calls.ts';
import type { FirePayload } from '../model/run.entity.ts';
import type { ContractCall } from '../../chain/contract-calls.ts';
import { executionStatus, runErrorName } from '../../shared/outcomes.ts';

export interface DryRunDeps {
  em: EntityManager;
  /** Every configured network: a dry run reads and test-invokes on its automation's. */
  networks: NetworkNodes;
  masterKeys: MasterKeys;
  sandbox: { memoryLimitMb: number; serviceCalls: number };
  /** What a function's `fetch` may reach, as in its runs. */
  egress: EgressPolicy;
  /**
   * The dry runs of functions this process runs at once, per account and in all: they run in the
   * API process, outside the workers' shares, so they have their own, small (dryRunSlots).
   */
  slots: AccountSlots;
}

/**
 * The longest a dry run's function runs, whatever its own timeout (up to 300 s): it runs in the
 * API process, and its caller waits for the answer.
 */
const dryRunTimeoutMs = 10_000;

/** One dry run of a function per account at once, four in all, per API process. */
export const dryRunSlots = () => new AccountSlots({ perAccount: 1, queuedPerAccount: 0, queued: 0, running: 4 });

/** What an action would do with a fire, found without recording, signing or sending anything. */
export type DryRun =
  | {
      type: 'function';
      status: typeof executionStatus.completed | typeof executionStatus.failed;
      result?: unknown;
      error?: SandboxError;
      logs: LogLine[];
      durationMs: number;
      /** A function action with `execute`: what its result decides, its calls test-invoked. */
      decision?: DryDecision;
    }
  | { type: 'contract'; calls: ContractCall[]; testInvocation: TestInvocation }
  | { type: 'contract'; error: { name: string; message: string } }
  | { type: 'webhook'; sent: false };

/**
 * Dry-runs `automation`'s action for `fire`: a function runs in the sandbox as a run's would, its
 * parameters the action's plus `trigger`, the fire with `type: 'test'` (so that code can tell);
 * its decided calls, or a contract action's calls, are test-invoked as the automation's signer,
 * never signed; a webhook is not posted. Nothing is stored: no execution, no run.
 */
export async function dryRunAction(deps: DryRunDeps, automation: Automation, fire: FirePayload): Promise<DryRun> {
  const { action } = automation;
  const accountId = automation.account.id;
  if (action.type === 'webhook') return { type: 'webhook', sent: false };
  const neo = requestNetworkOf(deps.networks, automation.network);
  // As its runs will send: from the signer the automation names, else the account's default.
  const signer = (await signerOrDefault(deps.em, accountId, automation.signerId ?? null))?.scriptHash.slice(2);
  if (action.type === 'contract') {
    const { scriptHash, operation, args } = action;
    const calls = resolveCalls([{ scriptHash, operation, args }], fire);
    if (!Array.isArray(calls)) return { type: 'contract', error: calls };
    return { type: 'contract', calls, testInvocation: await testInvoke(neo, calls, signer) };
  }
  const fn = await deps.em.findOne(FunctionDef, { id: action.functionId, account: accountId });
  const version = fn && (await versionOf(deps.em, fn, action.functionVersion ?? fn.version));
  if (!fn || !version) {
    const message = `No function ${action.functionId} exists in this account.`;
    const error = { name: runErrorName.FunctionNotFound, message, stack: '' };
    return { type: 'function', status: executionStatus.failed, error, logs: [], durationMs: 0 };
  }
  const secrets = await revealSecrets(deps.em, deps.masterKeys, accountId, version.secrets);
  const release = deps.slots.tryTake(accountId);
  if (!release) {
    // As every 429 of the API: `Retry-After`, which the typed client honours. A test lasts a second or so.
    throw new AppError(
      'rate_limit_exceeded',
      'A test of this account, or too many tests, run already: retry shortly.',
      { retryAfter: 1 },
      { 'Retry-After': '1' },
    );
  }
  const outcome = await runInSandbox({
    code: version.code,
    typescript: version.runtime === 'typescript',
    params: { ...action.parameters, trigger: { ...fire, type: 'test' } },
    execution: { id: 'exec_test', startedAt: new Date().toISOString(), functionId: fn.id },
    environment: version.environment,
    secrets,
    services: sandboxServices(neo, functionFetch(deps.egress, version.allowedHosts)),
    timeoutMs: Math.min(version.timeout * 1000, dryRunTimeoutMs),
    memoryLimitMb: deps.sandbox.memoryLimitMb,
    maxServiceCalls: deps.sandbox.serviceCalls,
  }).finally(release);
  const { logs, durationMs } = outcome;
  if (outcome.status === executionStatus.failed)
    return { type: 'function', status: executionStatus.failed, error: outcome.error, logs, durationMs };
  const ran = {
    type: 'function' as const,
    status: executionStatus.completed,
    result: outcome.result,
    logs,
    durationMs,
  };
  if (!action.execute) return ran;
  const { decision } = await dryRunDecision(outcome.result, action.execute, fire, { neo, signer });
  return { ...ran, decision };
}
