import { z } from 'zod';
import { gasText } from '../chain/gas-amount.ts';
import type { NeoRpc } from '../chain/rpc.ts';

/** GAS its transactions cost, landed and reserved: today (the UTC day) and in all; `reserved` of it not yet in a block. */
export const spendSchema = z.strictObject({ today: z.string(), total: z.string(), reserved: z.string() });

/** One configured network as an account or a signer shows it: an address's GAS there, and what was spent there. */
export const networkFiguresSchema = z
  .strictObject({
    name: z.string(),
    /** null without a signer, or when no node of the network answered in time. */
    gasBalance: z.string().nullable(),
    spend: spendSchema,
  })
  .meta({ id: 'AccountNetwork' });

/** What was spent on one network, in GAS fractions. */
interface SpendFigures {
  today: bigint;
  total: bigint;
  reserved: bigint;
}

/** How long a read waits for an address's balance on each network before answering without it. */
const balanceWaitMs = 2_000;

/** The address's GAS, in GAS; null without an address, or when the node cannot tell in time (the read still answers). */
async function gasBalanceOf(neo: NeoRpc, address: string | null): Promise<string | null> {
  if (!address) return null;
  try {
    const balance = await neo.getBalance(address, 'GAS', AbortSignal.timeout(balanceWaitMs));
    return gasText(BigInt(balance.amount));
  } catch {
    return null;
  }
}

/**
 * Per network, in the configured order: `address`'s GAS there and what `spendOf` reads was spent
 * there. Every network's balance is asked at once, each bounded: one slow network delays none of the others.
 */
export function networkFigures(
  pools: readonly (NeoRpc & { name: string })[],
  address: string | null,
  spendOf: (network: string) => Promise<SpendFigures>,
) {
  return Promise.all(
    pools.map(async (pool) => {
      const [gasBalance, spend] = await Promise.all([gasBalanceOf(pool, address), spendOf(pool.name)]);
      return {
        name: pool.name,
        gasBalance,
        spend: { today: gasText(spend.today), total: gasText(spend.total), reserved: gasText(spend.reserved) },
      };
    }),
  );
}
