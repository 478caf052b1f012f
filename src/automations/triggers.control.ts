import type { Client } from '@temporalio/client';
import type { WorkflowStarter } from '../temporal/workflow-starter.ts';
import type { NeoRpc } from '../chain/rpc.ts';
import { requestNetworkOf, type NamedNodes } from '../chain/network-of.ts';
import type { EgressPolicy } from '../egress/egress-policy.ts';
import type { Logger } from '../log.ts';
import { BlockFollowers } from './blocks/follower.control.ts';
import type { Automation } from './model/automation.entity.ts';
import type { TriggerType } from './model/trigger.schemas.ts';
import { followsBlocks } from './model/state-trigger-kinds.ts';
import { PricePollers } from './price/price-pollers.control.ts';
import type { ScheduledAutomation } from './schedule/schedule-options.control.ts';
import { Schedules } from './schedule/schedules.control.ts';

/** What a TriggerControl is made with: the deployment's Temporal, its options and its networks. */
export interface TriggerControlFields extends WorkflowStarter {
  catchupWindowMs: number;
  /** Every configured network's nodes, the default (first) first. */
  networks: readonly NamedNodes[];
  /** Refuses price sources whose URL names an address inside, before they are polled. */
  egress: EgressPolicy;
}

/**
 * What keeps Temporal's running state in line with the automations PostgreSQL holds, one per
 * process: each trigger kind's control holds what the process remembers between requests (the
 * follower's ensure in flight, the pollers' wake windows, the reconciler's listing of schedules).
 */
export class TriggerControl implements TriggerControlFields {
  readonly client: Client;
  readonly taskQueue: string;
  readonly catchupWindowMs: number;
  readonly networks: readonly NamedNodes[];
  readonly egress: EgressPolicy;
  readonly log: Pick<Logger, 'warn'>;
  readonly schedules: Schedules;
  readonly pricePollers: PricePollers;
  readonly blockFollowers: BlockFollowers;
  readonly #byName: Map<string, NamedNodes>;

  constructor(fields: TriggerControlFields) {
    this.client = fields.client;
    this.taskQueue = fields.taskQueue;
    this.catchupWindowMs = fields.catchupWindowMs;
    this.networks = fields.networks;
    this.egress = fields.egress;
    this.log = fields.log;
    this.schedules = new Schedules(fields);
    this.pricePollers = new PricePollers(fields);
    this.blockFollowers = new BlockFollowers(fields);
    this.#byName = new Map(fields.networks.map((neo) => [neo.name, neo]));
  }

  /** The default network's name: the first configured. */
  get defaultNetwork(): string {
    return this.networks[0]!.name;
  }

  /** The nodes of the network an automation names, for a request about it (409 if not configured). */
  chain(network: string): NeoRpc {
    return requestNetworkOf(this.#byName, network);
  }
}

/** How an automation changed, as far as its running trigger cares. */
export interface TriggerChange {
  /** The trigger type before the change, whose running part goes if the type changed. */
  previousType?: TriggerType;
  /** A new automation: Temporal holds nothing of it yet, so a schedule is created without a describe first. */
  created?: boolean;
}

/**
 * Makes Temporal run `automation`'s trigger as its row says: a schedule (paused unless active),
 * its price source's poller woken to read it now (it reads its automations' rows at every poll,
 * so a paused or deleted one leaves it by its row alone), or the block follower of its network.
 */
export async function applyTrigger(control: TriggerControl, automation: Automation, change: TriggerChange) {
  const { previousType, created = false } = change;
  if (previousType && previousType !== automation.triggerType)
    await removeTrigger(control, automation.id, previousType);
  const active = automation.status === 'active';
  if (automation.triggerType === 'schedule') await control.schedules.upsert(automation, created);
  if (automation.triggerType === 'price' && active && automation.priceSource) {
    await control.pricePollers.wake(automation.priceSource);
  }
  // A network not configured has no follower: its automations are moved to `error` (never idle).
  if (followsBlocks(automation.triggerType) && active)
    await control.blockFollowers.of(automation.network)?.ensureHeld();
}

/**
 * Stops what runs for a trigger, for good (deleted automation or changed trigger type): a
 * schedule. A price source's poller no longer finds the row; the block follower, likewise.
 */
export async function removeTrigger(control: TriggerControl, automationId: string, type: TriggerType) {
  if (type === 'schedule') await control.schedules.remove(automationId);
}

/**
 * Makes Temporal run what the row says, whatever Temporal holds now (the reconciler, for every
 * automation at each pass): a schedule exists and fires while active with the row's spec, and is
 * paused otherwise (or gone). The price pollers and the block followers are ensured once per pass,
 * not per automation.
 */
export async function convergeTrigger(
  control: TriggerControl,
  automation: ScheduledAutomation,
  lastRunAt?: Date | null,
) {
  if (automation.triggerType === 'schedule') await control.schedules.converge(automation, lastRunAt);
}
