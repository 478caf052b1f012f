import { stopWithError } from './notifications/error-event.ts';
import type { EntityManager } from '@mikro-orm/postgresql';
import { isDeployed } from '../chain/blocks.ts';
import type { NeoRpc } from '../chain/rpc.ts';
import type { Watcher } from './block-matching.ts';

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
      const contract = watcher.trigger.scriptHash.toLowerCase();
      if (presence.get(contract) === 'unanswered') continue;
      if (presence.get(contract) === 'deployed') {
        this.#misses.delete(watcher.id);
        continue;
      }
      const misses = this.#misses.get(watcher.id) ?? { count: 0, since: new Date(now).toISOString() };
      misses.count += 1;
      this.#misses.set(watcher.id, misses);
      if (misses.count < this.#limit) continue;
      this.#misses.delete(watcher.id);
      await moveToError(em, watcher.id, contract, misses);
    }
  }

  async #presence(watchers: Watcher[]): Promise<Map<string, 'deployed' | 'missing' | 'unanswered'>> {
    const presence = new Map<string, 'deployed' | 'missing' | 'unanswered'>();
    for (const watcher of watchers) {
      const contract = watcher.trigger.scriptHash.toLowerCase();
      if (presence.has(contract)) continue;
      const deployed = await isDeployed(this.#neo, contract).catch(() => undefined);
      presence.set(contract, deployed === undefined ? 'unanswered' : deployed ? 'deployed' : 'missing');
    }
    return presence;
  }
}

async function moveToError(em: EntityManager, automationId: string, contract: string, misses: Misses) {
  const errorDetails = {
    reason: 'trigger_unavailable' as const,
    message: `The contract to watch was not deployed in ${misses.count} checks in a row.`,
    since: misses.since,
    lastError: `No contract ${contract} is deployed on this network.`,
  };
  // Only if still active with a blockchain trigger: a PATCH meanwhile wins. Its notifications
  // are delivered by the recovery sweep: this activity starts no workflow.
  await stopWithError(em, { id: automationId, status: 'active', triggerType: 'blockchain' }, errorDetails);
}
