import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { StorableJson, StorableText } from '../../db/storable.ts';
import { Automation } from '../model/automation.entity.ts';
import type { Channel, NotifyEvent } from '../model/notify.schemas.ts';

import type { NotificationStatus } from '../../shared/outcomes.ts';

/** What a notification says: written when its cause happens, the same on every attempt. */
export interface NotificationMessage {
  event: NotifyEvent;
  automation: { id: string; name: string };
  run: {
    id: string;
    status: string;
    error: { name: string; message: string } | null;
    txHash: string | null;
    vmState: string | null;
  } | null;
  /** low_gas: the signer's address, its balance and the threshold, in GAS. */
  gas?: { address: string; balance: string; below: string };
  /** approval_requested: how many keys must approve, the transaction's fee (GAS) and until when the run waits. */
  approval?: { required: number; fee: string; deadline: string };
  /** error: why the service stopped the automation. */
  reason?: string;
  occurredAt: string;
  /** One line for people (Slack, Discord, Telegram): names, ids and what went wrong. */
  text: string;
}

/**
 * One notification of one cause (`eventKey`) to one rule's channel, delivered by its own workflow
 * (workflow id = notification id). `channel` is the rule's channel as it was then: names of
 * secrets, never their values.
 */
export const Notification = defineEntity({
  name: 'Notification',
  tableName: 'notifications',
  properties: {
    id: p.string().primary(),
    automation: () => p.manyToOne(Automation).deleteRule('cascade'),
    accountId: p.string(),
    runId: p.string().nullable(),
    rule: p.integer(),
    event: p.string().length(32).$type<NotifyEvent>(),
    eventKey: p.string(),
    channel: p.type(StorableJson).$type<Channel>(),
    message: p.type(StorableJson).$type<NotificationMessage>(),
    status: p.string().length(16).$type<NotificationStatus>(),
    attempts: p.integer(),
    lastStatus: p.integer().nullable(),
    lastError: p.type(StorableText).nullable(),
    dispatched: p.boolean(),
    createdAt: p.datetime(),
    completedAt: p.datetime().nullable(),
  },
});

export type Notification = InferEntity<typeof Notification>;
