import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import type { ContractCall } from '../../chain/contract-calls.ts';
import { StorableJson } from '../../db/storable.ts';
import { Automation } from './automation.entity.ts';
import type { RunErrorName, RunStatus } from '../../shared/outcomes.ts';

/** What fired a run: kept whole for the action, summarised in the run history. */
export type FirePayload =
  | { type: 'schedule'; scheduledAt: string }
  | {
      type: 'blockchain';
      scriptHash: string;
      eventName: string;
      state: unknown;
      txHash: string | null;
      blockHash: string;
      blockIndex: number;
      notificationIndex: number;
    }
  | {
      type: 'transaction';
      txHash: string;
      blockHash: string;
      blockIndex: number;
      sender: string;
      vmState: 'HALT' | 'FAULT';
      exception: string | null;
      calls: { scriptHash: string; operation: string }[];
    }
  | { type: 'price'; asset: string; currency: string; price: string; observedAt: string | null }
  | { type: 'state'; scriptHash: string; operation: string; value: string; blockIndex: number; blockHash: string }
  | { type: 'manual' }
  | {
      type: 'webhook';
      /** The request's JSON body, at most 256 KiB, storable. */
      body: unknown;
      /** content-type, user-agent and the headers the trigger names, lower-cased. */
      headers: Record<string, string>;
      receivedAt: string;
    };

export interface RunError {
  name: string;
  message: string;
  /** A webhook action's last answer: its HTTP status and at most 1 KiB of its body. */
  status?: number;
  body?: string;
}

/** Where a run's wait for approvals stands (approvals/). */
export const approvalStatuses = ['pending', 'approved', 'rejected', 'expired'] as const;
export type ApprovalStatus = (typeof approvalStatuses)[number];

/**
 * What a run waiting for approvals asked for, once its calls and exact fees were known: how many
 * keys must approve, its transaction's fees then (GAS fractions), and until when it waits.
 */
export interface ApprovalRequest {
  status: ApprovalStatus;
  required: number;
  fees: { systemFee: string; networkFee: string };
  requestedAt: string;
  deadline: string;
}

/** An error the service names itself (src/shared/outcomes.ts), where no function's own is copied. */
export type NamedRunError = RunError & { name: RunErrorName };

/**
 * One firing of an automation and its action's outcome. `fireKey` names the cause (a scheduled
 * time, a notification, a price crossing), and is unique per automation: a cause fires once.
 */
export const AutomationRun = defineEntity({
  name: 'AutomationRun',
  tableName: 'automation_runs',
  uniques: [{ properties: ['automation', 'fireKey'] }],
  properties: {
    id: p.string().primary(),
    automation: () => p.manyToOne(Automation).deleteRule('cascade'),
    accountId: p.string(),
    /** The network its automation followed when it fired: where its transaction goes. */
    network: p.string().length(32),
    /** The signer its transaction was prepared with; null until then, or once that signer is deleted. */
    signerId: p.string().nullable(),
    fireKey: p.string(),
    status: p.string().length(16).$type<RunStatus>(),
    trigger: p.type(StorableJson).$type<FirePayload>(),
    retryOf: p.string().nullable(),
    /** Whether its action workflow was started; the block follower re-dispatches those that were not. */
    dispatched: p.boolean(),
    executionId: p.string().nullable(),
    /**
     * The calls its transaction makes, as sent (templates resolved), stored before anything is
     * signed: a contract action's, or those a function decided. Written once (run-contract.sql.ts).
     */
    calls: p.type(StorableJson).$type<ContractCall[]>().nullable(),
    /** Its wait for approvals before it signs (approvals/); null for a run that never waited. */
    approval: p.type(StorableJson).$type<ApprovalRequest>().nullable(),
    /** Why a deciding function chose to send nothing: the run is a success that sent nothing. */
    skipped: p.string().length(512).nullable(),
    txHash: p.string().length(66).nullable(),
    /** The signed transaction, stored before it is first sent so that a retry re-sends the same one. */
    txRaw: p.text().nullable().lazy(),
    validUntilBlock: p.integer().nullable(),
    /** A node accepted the transaction once: a refusal of a re-send then proves nothing (contract-call.ts). */
    txRelayed: p.boolean().default(false),
    vmState: p.string().length(8).nullable(),
    gasConsumed: p.string().length(32).nullable(),
    /** In GAS fractions: the fees the transaction burned, read from the chain once it is in a block. */
    systemFee: p.string().length(32).nullable(),
    networkFee: p.string().length(32).nullable(),
    /** Why the chain could not be read or reached while the run's transaction may still land; null once it answers. */
    relayError: p.string().length(512).nullable(),
    error: p.type(StorableJson).$type<RunError>().nullable(),
    startedAt: p.datetime(),
    completedAt: p.datetime().nullable(),
    duration: p.integer().nullable(),
  },
});

export type AutomationRun = InferEntity<typeof AutomationRun>;
