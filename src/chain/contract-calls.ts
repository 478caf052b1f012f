import { sc } from '@cityofzion/neon-js';
import { toContractParam, type ContractArg } from './contract-args.ts';

/**
 * The calls a run sends, and the one script that makes them. A run's calls (a contract action's,
 * or those a function decided) go into a single transaction: every call happens, in order, or
 * none does (a FAULT in any reverts them all).
 */

/**
 * One contract call as a run stores and sends it: `scriptHash` 0x and 40 hex digits, `args` valid
 * contract arguments (contract-args.ts) with every value as sent, templates already resolved.
 */
export interface ContractCall {
  scriptHash: string;
  operation: string;
  args: ContractArg[];
}

/** The one Neo script making every call in order; throws on an invalid argument (check them first). */
export function callsScript(calls: ContractCall[]): string {
  return sc.createScript(
    ...calls.map((call) => ({
      scriptHash: call.scriptHash.slice(2).toLowerCase(),
      operation: call.operation,
      args: call.args.map(toContractParam),
    })),
  );
}
