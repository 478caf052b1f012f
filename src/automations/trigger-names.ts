import { rpcErrorCode, type ContractState, type NeoRpc } from '../chain/rpc.ts';
import { AppError } from '../errors.ts';
import type { Trigger } from './automations.schemas.ts';
import { listOf } from './explain-match.ts';

/** neo-go's code for a contract that is not deployed. */
const unknownContract = -102;

type Events = ContractState['manifest']['abi']['events'];

/**
 * The event names and filter keys of a blockchain trigger, checked against its contracts'
 * manifests at create and update: a typo would otherwise match nothing, silently. A trigger that
 * names neither is not checked (its contract may be deployed later: the follower tells when it
 * stays missing). Keys are parameter names, or positions ("0", "1"…) of a named event.
 * 404 CONTRACT_NOT_FOUND when none of its contracts is deployed; 400 for a name none declares.
 */
export async function assertTriggerNames(neo: NeoRpc, trigger: Trigger): Promise<void> {
  if (trigger.type !== 'blockchain') return;
  const eventNames = listOf(trigger.event);
  const filters = [trigger.filter ?? {}, ...(trigger.anyOf ?? [])];
  const keyed = filters.some((filter) => Object.keys(filter).length > 0);
  if (eventNames.length === 0 && !keyed) return;
  const contracts = listOf(trigger.scriptHash);
  const declared = (await Promise.all(contracts.map((contract) => eventsOf(neo, contract)))).filter(
    (events) => events !== null,
  );
  if (declared.length === 0) {
    throw new AppError('contract_not_found', `No contract ${contracts.join(' or ')} is deployed on this network.`, {
      field: 'trigger.scriptHash',
    });
  }
  const events = declared.flat().filter((event) => eventNames.length === 0 || eventNames.includes(event.name));
  for (const name of eventNames) {
    if (!events.some((event) => event.name === name)) {
      throw new AppError('invalid_request', `No contract of the trigger declares an event "${name}".`, {
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
      throw new AppError('invalid_request', `"${key}" is no parameter of ${which}.`, { field: `${at}.${key}` });
    }
  }
}

/** Whether `key` names one of `parameters`: by name, or by position. */
const names = (parameters: { name: string }[], key: string) =>
  parameters.some((parameter) => parameter.name === key) || (/^\d+$/.test(key) && Number(key) < parameters.length);

async function eventsOf(neo: NeoRpc, contract: string): Promise<Events | null> {
  try {
    return (await neo.getContractState(contract)).manifest.abi.events;
  } catch (error) {
    if (rpcErrorCode(error) === unknownContract) return null;
    throw error;
  }
}
