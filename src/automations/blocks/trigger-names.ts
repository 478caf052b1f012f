import { rpcErrorCode, type ContractState, type NeoRpc } from '../../chain/rpc.ts';
import { AppError } from '../../errors.ts';
import type { Trigger } from '../model/trigger.schemas.ts';
import { listOf } from './match.ts';

/** neo-go's code for a contract that is not deployed. */
const unknownContract = -102;

type Events = ContractState['manifest']['abi']['events'];

/**
 * The event names and filter keys of a blockchain trigger, checked against its contracts'
 * manifests at create and update: a typo would otherwise match nothing, silently. A trigger that
 * names neither is not checked (its contract may be deployed later: the follower tells when it
 * stays missing). Keys are parameter names, or positions ("0", "1"…) of a named event.
 * 404 CONTRACT_NOT_FOUND when none of its contracts is deployed; 400 for a name none declares.
 * A manifest read in the last `heldMs` accepts a trigger without asking the node again (creates of
 * many watchers of one contract ask once, issue 34); a trigger it would refuse is checked again
 * against manifests read now, so that a contract just deployed or updated is never refused.
 */
export async function assertTriggerNames(neo: NeoRpc, trigger: Trigger): Promise<void> {
  if (trigger.type !== 'blockchain') return;
  const eventNames = listOf(trigger.event);
  const filters = [trigger.filter ?? {}, ...(trigger.anyOf ?? [])];
  const keyed = filters.some((filter) => Object.keys(filter).length > 0);
  if (eventNames.length === 0 && !keyed) return;
  const contracts = listOf(trigger.scriptHash);
  const check = async (held: boolean) =>
    namesProblem(
      await Promise.all(contracts.map((contract) => eventsOf(neo, contract, held))),
      contracts,
      eventNames,
      filters,
    );
  if ((await check(true)) === null) return;
  const problem = await check(false);
  if (problem) throw problem;
}

/** What a trigger names that its contracts' manifests (`declared`, null: not deployed) do not declare, if anything. */
function namesProblem(
  declared: (Events | null)[],
  contracts: string[],
  eventNames: string[],
  filters: Record<string, unknown>[],
): AppError | null {
  const deployed = declared.filter((events) => events !== null);
  if (deployed.length === 0) {
    return new AppError('contract_not_found', `No contract ${contracts.join(' or ')} is deployed on this network.`, {
      field: 'trigger.scriptHash',
    });
  }
  const events = deployed.flat().filter((event) => eventNames.length === 0 || eventNames.includes(event.name));
  for (const name of eventNames) {
    if (!events.some((event) => event.name === name)) {
      return new AppError('invalid_request', `No contract of the trigger declares an event "${name}".`, {
        field: 'trigger.event',
      });
    }
  }
  for (const [index, filter] of filters.entries()) {
    const at = index === 0 ? 'trigger.filter' : `trigger.anyOf.${index - 1}`;
    for (const key of Object.keys(filter)) {
      if (events.some((event) => names(event.parameters, key))) continue;
      const which =
        eventNames.length > 0
          ? `the event${eventNames.length > 1 ? 's' : ''} ${eventNames.join(', ')}`
          : 'any event of the contract';
      return new AppError('invalid_request', `"${key}" is no parameter of ${which}.`, { field: `${at}.${key}` });
    }
  }
  return null;
}

/** Whether `key` names one of `parameters`: by name, or by position. */
const names = (parameters: { name: string }[], key: string) =>
  parameters.some((parameter) => parameter.name === key) || (/^\d+$/.test(key) && Number(key) < parameters.length);

/** How long a manifest read accepts triggers without asking the node again. */
const heldMs = 30_000;

/** Contracts whose manifests are held per node: the oldest read goes first, so no tenant grows it without bound. */
const maxHeld = 1_000;

/** The manifests' events read lately, by node (a NeoRpc is one network's node) and contract. */
const heldEvents = new WeakMap<NeoRpc, Map<string, { events: Events; readAt: number }>>();

/** The contract's events, null when it is not deployed; `held`: a manifest read lately will do. */
async function eventsOf(neo: NeoRpc, contract: string, held: boolean): Promise<Events | null> {
  const byContract = heldEvents.get(neo) ?? new Map<string, { events: Events; readAt: number }>();
  heldEvents.set(neo, byContract);
  const key = contract.toLowerCase();
  const kept = byContract.get(key);
  if (held && kept && Date.now() - kept.readAt < heldMs) return kept.events;
  try {
    const { events } = (await neo.getContractState(contract)).manifest.abi;
    // Deleted first, so that the map's order stays the order of reads: its first key is the oldest.
    byContract.delete(key);
    byContract.set(key, { events, readAt: Date.now() });
    if (byContract.size > maxHeld) byContract.delete(byContract.keys().next().value!);
    return events;
  } catch (error) {
    if (rpcErrorCode(error) !== unknownContract) throw error;
    byContract.delete(key);
    return null;
  }
}
