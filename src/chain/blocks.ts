import { CONST } from '@cityofzion/neon-js';
import { rpcErrorCode, type ContainedNotification, type NeoRpc } from './rpc.ts';
import { decodeAs, stateItems, type StackItem } from './stack-item.ts';

/** One notification of a persisted block, with where it came from and where it stands. */
export interface BlockNotification {
  blockIndex: number;
  blockHash: string;
  /** The transaction's hash, or the block's for the OnPersist and PostPersist executions. */
  container: string;
  /** Null when the container is the block. */
  txHash: string | null;
  /**
   * 0-based, in execution order, among the notifications of the same container: with `container`
   * it names the notification. A block's OnPersist and PostPersist share one numbering.
   */
  notificationIndex: number;
  /** `0x` and lower-case. */
  contract: string;
  eventName: string;
  state: StackItem;
}

export interface BlockNotifications {
  blockIndex: number;
  blockHash: string;
  notifications: BlockNotification[];
}

export interface EventParameter {
  name: string;
  type: string;
}

/** neo-go's code for a contract that is not deployed. */
const unknownContract = -102;

/**
 * Every notification of the block at `index` in two RPC calls (`getblockhash`, then
 * `getblocknotifications` by hash), however many transactions it holds; the block must exist.
 * Through a pool of C# nodes, read in order, one request a block (nodes/read-ahead.ts).
 * Notifications of transactions that faulted are not there: the chain undid them.
 */
export async function readBlockNotifications(neo: NeoRpc, index: number): Promise<BlockNotifications> {
  // By hash rather than index: the answer then names the block even when it emitted nothing.
  const blockHash = (await neo.getBlockHash(index)).toLowerCase();
  const lists = await neo.getBlockNotifications(blockHash);
  const counts = new Map<string, number>();
  const notification = (raw: ContainedNotification, ofBlock: boolean): BlockNotification => {
    const container = raw.container.toLowerCase();
    const notificationIndex = counts.get(container) ?? 0;
    counts.set(container, notificationIndex + 1);
    return {
      blockIndex: index,
      blockHash,
      container,
      txHash: ofBlock ? null : container,
      notificationIndex,
      contract: raw.contract.toLowerCase(),
      eventName: raw.eventname,
      state: raw.state,
    };
  };
  const notifications = [
    ...lists.onpersist.map((raw) => notification(raw, true)),
    ...lists.application.map((raw) => notification(raw, false)),
    ...lists.postpersist.map((raw) => notification(raw, true)),
  ];
  return { blockIndex: index, blockHash, notifications };
}

const contractManagement = `0x${CONST.NATIVE_CONTRACT_HASH.ManagementContract}`;

/**
 * The contracts whose manifest the block changed: ContractManagement's `Update` (and `Destroy`)
 * events, whose one argument is the contract's hash.
 */
export function changedContracts(block: BlockNotifications): string[] {
  return block.notifications.flatMap(({ contract, eventName, state }) => {
    if (contract !== contractManagement || (eventName !== 'Update' && eventName !== 'Destroy')) return [];
    const [hash] = stateItems(state);
    const decoded = hash ? decodeAs(hash, 'Hash160') : null;
    return typeof decoded === 'string' && /^0x[0-9a-f]{40}$/.test(decoded) ? [decoded] : [];
  });
}

export type EventAbiCache = ReturnType<typeof createEventAbiCache>;

/**
 * The declared parameters of contracts' events, from one `getcontractstate` per contract until it
 * is forgotten (its contract updated); null for a contract that is not deployed or an event it
 * does not declare. A failed look-up and a contract not deployed yet are not kept, so the next
 * asks again.
 */
export function createEventAbiCache(neo: NeoRpc) {
  const events = new Map<string, Promise<Map<string, EventParameter[]> | null>>();
  const eventsOf = (contract: string) => {
    let cached = events.get(contract);
    if (!cached) {
      cached = declaredEvents(neo, contract);
      events.set(contract, cached);
      cached.then(
        (declared) => declared ?? events.delete(contract),
        () => events.delete(contract),
      );
    }
    return cached;
  };
  return {
    async parameters(contract: string, eventName: string): Promise<EventParameter[] | null> {
      return (await eventsOf(contract.toLowerCase()))?.get(eventName) ?? null;
    },
    /** Asks the node again next time: the contract was updated. */
    forget(contract: string) {
      events.delete(contract.toLowerCase());
    },
    /** Asks the node again for every contract: blocks were followed without this cache. */
    forgetAll() {
      events.clear();
    },
  };
}

/** Whether a contract is deployed at `scriptHash`; errors other than the node not knowing it are thrown. */
export async function isDeployed(neo: NeoRpc, scriptHash: string): Promise<boolean> {
  try {
    await neo.getContractState(scriptHash);
    return true;
  } catch (error) {
    if (rpcErrorCode(error) === unknownContract) return false;
    throw error;
  }
}

async function declaredEvents(neo: NeoRpc, contract: string): Promise<Map<string, EventParameter[]> | null> {
  try {
    const { manifest } = await neo.getContractState(contract);
    return new Map(manifest.abi.events.map((event) => [event.name, event.parameters]));
  } catch (error) {
    if (rpcErrorCode(error) === unknownContract) return null;
    throw error;
  }
}
