import { stopWithError } from '../notifications/error-event.ts';
import type { EntityManager } from '@mikro-orm/postgresql';
import { isDeployed } from '../../chain/blocks.ts';
import type { NeoRpc } from '../../chain/rpc.ts';
import type { Watcher } from './block-matching.ts';
import { listOf } from './match.ts';

interface Misses {
  count: number;
  since: string;
}

/**
 * A blockchain trigger whose contract is not deployed never fires, silently. Every `intervalMs`,
 * the follower asks the node for the contract of each watched script hash (one call per distinct
 * contract, not per automation); an automation whose contract was missing `limit` checks in a row
 * moves to `error` (PATCH `status: active` watches it again). A node that cannot answer counts
 * for nothing: only the node saying "unknown contract" is a miss. Counts live in the follower's
 * process: a restart begins them again, which only delays an `error`.
 */
export class UndeployedContracts {
  readonly #misses = new Map<string, Misses>();
  #checkedAt = Number.NEGATIVE_INFINITY;

  readonly #neo: NeoRpc;
  readonly #limit: number;
  readonly #intervalMs: number;

  constructor(neo: NeoRpc, limit: number, intervalMs: number) {
    this.#neo = neo;
    this.#limit = limit;
    this.#intervalMs = intervalMs;
  }

  /** Checks the watchers' contracts when a check is due; moves those missing too long to `error`. */
  async check(em: EntityManager, watchers: Watcher[], now = Date.now()) {
    if (now - this.#checkedAt < this.#intervalMs) return;
    this.#checkedAt = now;
    const presence = await this.#presence(watchers);
    const watched = new Set(watchers.map((watcher) => watcher.id));
    for (const id of this.#misses.keys()) if (!watched.has(id)) this.#misses.delete(id);
    for (const watcher of watchers) {
      const contracts = contractsOf(watcher);
      if (contracts.length === 0) continue;
      const states = contracts.map((contract) => presence.get(contract));
      // A trigger on several contracts fires while one of them is deployed.
      if (states.includes('deployed')) {
        this.#misses.delete(watcher.id);
        continue;
      }
      if (states.includes('unanswered')) continue;
      const misses = this.#misses.get(watcher.id) ?? { count: 0, since: new Date(now).toISOString() };
      misses.count += 1;
      this.#misses.set(watcher.id, misses);
      if (misses.count < this.#limit) continue;
      this.#misses.delete(watcher.id);
      await moveToError(em, watcher, contracts.join(', '), misses);
    }
  }

  async #presence(watchers: Watcher[]): Promise<Map<string, 'deployed' | 'missing' | 'unanswered'>> {
    const presence = new Map<string, 'deployed' | 'missing' | 'unanswered'>();
    for (const contract of new Set(watchers.flatMap(contractsOf))) {
      const deployed = await isDeployed(this.#neo, contract).catch(() => undefined);
      presence.set(contract, deployed === undefined ? 'unanswered' : deployed ? 'deployed' : 'missing');
    }
    return presence;
  }
}

/** The contracts a trigger watches, `0x` and lower-case: none for a transaction trigger on a sender alone. */
const contractsOf = (watcher: Watcher) => listOf(watcher.trigger.scriptHash).map((hash) => hash.toLowerCase());

async function moveToError(em: EntityManager, watcher: Watcher, contracts: string, misses: Misses) {
  const errorDetails = {
    reason: 'trigger_unavailable' as const,
    message: `The contract to watch was not deployed in ${misses.count} checks in a row.`,
    since: misses.since,
    lastError: `No contract ${contracts} is deployed on this network.`,
  };
  // Only if still active with the same trigger type: a PATCH meanwhile wins. Its notifications
  // are delivered by the recovery sweep: this activity starts no workflow.
  const where = { id: watcher.id, status: 'active', triggerType: watcher.trigger.type } as const;
  await stopWithError(em, where, errorDetails);
}
