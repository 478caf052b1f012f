import type { Client } from '@temporalio/client';
import type { WorkflowStarter } from '../temporal/workflow-starter.ts';
import type { NeoRpc } from '../chain/rpc.ts';
import type { Networks } from '../chain/nodes/networks.ts';
import { withSharedReads } from '../chain/shared-reads.ts';
import type { EgressPolicy } from '../egress/egress-policy.ts';
import type { Logger } from '../log.ts';
import { BlockFollower } from './blocks/follower.control.ts';
import type { Automation } from './model/automation.entity.ts';
import type { TriggerType } from './model/trigger.schemas.ts';
import { followsBlocks } from './model/state-trigger-kinds.ts';
import { PricePollers } from './price/price-pollers.control.ts';
import type { ScheduledAutomation } from './schedule/schedule-options.control.ts';
import { Schedules } from './schedule/schedules.control.ts';

/** What a TriggerControl is made with: the deployment's Temporal, its options and its node. */
export interface TriggerControlFields extends WorkflowStarter {
  catchupWindowMs: number;
  /** The first network's node. */
  neo: NeoRpc;
  /** Every network followed, by name (issue 45): an automation's reads go to its own. */
  networks: Networks;
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
  readonly neo: NeoRpc;
  readonly networks: Networks;
  readonly egress: EgressPolicy;
  readonly log: Pick<Logger, 'warn'>;
  readonly schedules: Schedules;
  readonly pricePollers: PricePollers;
  readonly blockFollower: BlockFollower;
  /** The other networks' nodes as nodeOf made them, by name. */
  private readonly nodes = new Map<string, NeoRpc>();

  constructor(fields: TriggerControlFields) {
    this.client = fields.client;
    this.taskQueue = fields.taskQueue;
    this.catchupWindowMs = fields.catchupWindowMs;
    this.neo = fields.neo;
    this.networks = fields.networks;
    this.egress = fields.egress;
    this.log = fields.log;
    this.schedules = new Schedules(fields);
    this.pricePollers = new PricePollers(fields);
    this.blockFollower = new BlockFollower(fields);
  }

  /**
   * The node of the network named, its height and magic shared by concurrent requests as `neo`'s
   * are (withSharedReads); undefined when no network of that name is configured.
   */
  nodeOf(network: string): NeoRpc | undefined {
    const pool = this.networks.get(network);
    if (!pool) return undefined;
    if (pool === this.networks.first) return this.neo;
    const node = this.nodes.get(network) ?? withSharedReads(pool);
    this.nodes.set(network, node);
    return node;
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
 * so a paused or deleted one leaves it by its row alone), or the network's block follower.
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
  if (followsBlocks(automation.triggerType) && active) await control.blockFollower.ensureHeld();
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
 * paused otherwise (or gone). The price pollers and the block follower are ensured once per pass,
 * not per automation.
 */
export async function convergeTrigger(
  control: TriggerControl,
  automation: ScheduledAutomation,
  lastRunAt?: Date | null,
) {
  if (automation.triggerType === 'schedule') await control.schedules.converge(automation, lastRunAt);
}
