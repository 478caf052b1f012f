/**
 * model/: the ground every capability of automations reads, importing no capability itself: the
 * entities (this automation, its run), the trigger, action and notify schemas with what they
 * check (cron, time zones, filters, argument templates, a state trigger's conditions), and the
 * statements of the automation's row (automation.sql.ts).
 */
import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { StorableJson } from '../../db/storable.ts';
import { Account } from '../../auth/account.entity.ts';
import { prefixedId, timestamps } from '../../db/resource-properties.ts';
import type { NotifyRule } from './notify.schemas.ts';
import type { Trigger, TriggerType } from './trigger.schemas.ts';
import type { Action } from './action.schemas.ts';
import type { AutomationStatus } from './automation-statuses.ts';
import type { Budget } from '../../chain/gas-budget.ts';

/** Why the service stopped an automation (status `error`), shown by GET. */
interface ErrorDetails {
  reason: 'function_deleted' | 'trigger_unavailable' | 'budget_exhausted' | 'network_unavailable';
  message: string;
  /** trigger_unavailable: when the trigger began to fail, and its last problem. */
  since?: string;
  lastError?: string;
}

/** One trigger coupled with one action, owned by an account. */
export const Automation = defineEntity({
  name: 'Automation',
  tableName: 'automations',
  properties: {
    id: prefixedId('auto'),
    account: () => p.manyToOne(Account).deleteRule('cascade'),
    name: p.string().length(128),
    /** The Neo network it follows and sends on, by its configured name (NEOFLOW_NETWORKS). */
    network: p.string().length(32),
    status: p.string().length(16).$type<AutomationStatus>(),
    /** Copied from `trigger.type` so that lists filter on an indexed column. */
    triggerType: p.string().length(16).$type<TriggerType>(),
    trigger: p.json<Trigger>(),
    action: p.json<Action>(),
    /** The function a function action runs, so that deleting it finds its automations. */
    functionId: p.string().nullable(),
    /** The signer a sending action signs with (src/signers); null for an action that sends nothing. */
    signerId: p.string().nullable(),
    /** Blockchain triggers match blocks from here on: the chain height when they were last activated. */
    watchFromBlock: p.integer().nullable(),
    /** A price trigger's source, by key (price-source-key.ts): the automations one poller reads. */
    priceSource: p.string().length(64).nullable(),
    errorDetails: p.type(StorableJson).$type<ErrorDetails>().nullable(),
    /** Who is told what about its runs and its state (notifications). */
    notify: p.json<NotifyRule[]>(),
    /** The low_gas rules, by index, whose threshold the signer was under at the last check. */
    gasBelow: p.json<number[]>(),
    /** What its transactions may cost (an action that sends); null: its account's default holds. */
    budget: p.json<Budget>().nullable(),
    /** The keys that created it and last changed it (not a pause or a resume): neither may approve its runs. */
    createdByKeyId: p.string().nullable(),
    changedByKeyId: p.string().nullable(),
    ...timestamps(),
  },
});

export type Automation = InferEntity<typeof Automation>;
