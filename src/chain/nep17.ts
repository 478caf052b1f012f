import { CONST, sc, wallet } from '@cityofzion/neon-js';
import { hash160Pattern, maxAddressChars } from './contract-args.ts';
import type { Invocation, StackItem } from './stack-item.ts';

/** What an address holds of one NEP-17 token. */
export interface Nep17Balance {
  /** As asked: `NEO`, `GAS` or the token's `0x` script hash. */
  asset: string;
  /** In the token's smallest unit, as a decimal string: balances outgrow JavaScript numbers. */
  amount: string;
  decimals: number;
}

const nativeTokens = new Map<string, string>([
  ['NEO', CONST.NATIVE_CONTRACT_HASH.NeoToken],
  ['GAS', CONST.NATIVE_CONTRACT_HASH.GasToken],
]);

/** The token's script hash as neon-js takes it (big-endian hex, no `0x`). */
export function assetHash(asset: string): string {
  const hash = nativeTokens.get(asset) ?? (hash160Pattern.test(asset) ? asset.slice(2) : undefined);
  if (!hash)
    throw new Error(`asset must be NEO, GAS or a 0x script hash of 40 hex digits, not ${JSON.stringify(asset)}`);
  return hash.toLowerCase();
}

/**
 * The call of a token's `transfer(from, to, amount, null)`, for `sc.createScript` or
 * `emitContractCall`; `from` and `to` are addresses or script hashes, `amount` in the smallest unit.
 */
export function transferCall(asset: string, from: string, to: string, amount: bigint) {
  return {
    scriptHash: assetHash(asset),
    operation: 'transfer',
    args: [
      sc.ContractParam.hash160(from),
      sc.ContractParam.hash160(to),
      sc.ContractParam.integer(amount.toString()),
      sc.ContractParam.any(null),
    ],
  };
}

/** `balanceOf` and `decimals` in one script, so both answers come from the same block. */
export function balanceScript(address: string, asset: string): string {
  if (address.length > maxAddressChars)
    throw new Error(`an address of ${address.length} characters is not a Neo N3 address`);
  if (!wallet.isAddress(address, CONST.DEFAULT_ADDRESS_VERSION)) {
    throw new Error(`${JSON.stringify(address)} is not a Neo N3 address`);
  }
  const scriptHash = assetHash(asset);
  return sc.createScript(
    { scriptHash, operation: 'balanceOf', args: [sc.ContractParam.hash160(address)] },
    { scriptHash, operation: 'decimals' },
  );
}

/** Reads the answer of `balanceScript`; a contract that is missing or not NEP-17 faults or answers otherwise. */
export function balanceFrom(asset: string, invocation: Invocation): Nep17Balance {
  const [amount, decimals] = invocation.stack;
  if (invocation.state !== 'HALT' || !isInteger(amount) || !isInteger(decimals) || invocation.stack.length !== 2) {
    const reason = invocation.exception ? `: ${invocation.exception}` : '';
    throw new Error(`${asset} is not a NEP-17 token on this chain${reason}`);
  }
  return { asset, amount: amount.value, decimals: Number(decimals.value) };
}

function isInteger(item: StackItem | undefined): item is { type: 'Integer'; value: string } {
  return item?.type === 'Integer' && typeof item.value === 'string' && /^-?\d+$/.test(item.value);
}
