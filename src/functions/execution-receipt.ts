import type { Config } from '../config.ts';
import { storableJson } from '../db/storable.ts';
import type { Execution } from './execution.entity.ts';
import { receiptKeysOf } from '../receipts/receipt-keys.ts';
import { configfsTsm, type ReportSource } from '../receipts/tee/configfs-tsm.ts';
import { bindWorkerKey } from '../receipts/tee/worker-key.ts';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Networks } from '../chain/nodes/networks.ts';
import type { End, StoredReceipt } from './execution.sql.ts';
import { magicOf, nodesOf } from './run-network.ts';
import { versionToRun } from './run-version.ts';
import type { Versioned } from './versioned-fields.ts';
import {
  noTee,
  receiptFieldsOf,
  type HostCall,
  type ReceiptSubject,
  type TeeEvidence,
} from '../receipts/receipt-claims.ts';
import { signReceipt, type ReceiptKey } from '../receipts/receipt-key.ts';
import { receiptPreimage } from '../receipts/receipt-preimage.ts';
import { executionStatus } from '../shared/outcomes.ts';

/** What signs a process's receipts: the deployment's key, or a confidential VM's own with its evidence. */
export interface ReceiptSigner {
  key: ReceiptKey;
  tee: TeeEvidence;
  /** The report that binds the key to the VM, stored with each receipt; null on an ordinary host. */
  evidence: Buffer | null;
}

const deploymentSigner = (key: ReceiptKey): ReceiptSigner => ({ key, tee: noTee, evidence: null });

/**
 * The process's signer: with NEOFLOW_RECEIPT_TEE=configfs-tsm a key of its own, bound to its
 * confidential VM's report (a process that gets no report does not start); else the deployment's
 * receipt key, when NEOFLOW_RECEIPT_KEY is set.
 */
export async function openReceiptSigner(
  config: Config,
  reports: ReportSource = configfsTsm(),
): Promise<ReceiptSigner | undefined> {
  if (config.secrets.receiptTee === 'configfs-tsm') {
    const bound = await bindWorkerKey(reports);
    return { key: bound.key, tee: { type: bound.teeType, hash: bound.evidenceHash }, evidence: bound.evidence };
  }
  const { active } = receiptKeysOf(config);
  return active ? deploymentSigner(active) : undefined;
}

/** What a run adds to its row for its receipt: the version it ran and the calls it made. */
export interface RunFacts {
  networkMagic: number;
  version: Versioned & { version: number };
  hostCalls: HostCall[];
}

/** What a receipt covers of an ended execution's row. */
type EndedExecution = Pick<
  Execution,
  'id' | 'params' | 'status' | 'error' | 'logs' | 'secretsRead' | 'startedAt' | 'completedAt'
> & { function: { id: string } };

/**
 * An ended execution as its receipt describes it: every value as its row stores it (the result
 * made storable, the logs masked), so that the receipt can be checked against the row later.
 */
export function receiptSubject(execution: EndedExecution, run: RunFacts, result: unknown): ReceiptSubject {
  const { version } = run;
  const completed = execution.status === executionStatus.completed;
  return {
    networkMagic: run.networkMagic,
    executionId: execution.id,
    functionId: execution.function.id,
    code: version.code,
    config: {
      runtime: version.runtime,
      timeout: version.timeout,
      environment: version.environment,
      secrets: version.secrets,
      allowedHosts: version.allowedHosts,
      version: version.version,
    },
    params: asStored(execution.params),
    status: completed ? executionStatus.completed : executionStatus.failed,
    outcome: asStored(completed ? result : execution.error),
    logs: asStored(execution.logs),
    secretsRead: asStored(execution.secretsRead),
    hostCalls: run.hostCalls,
    startedAt: execution.startedAt,
    completedAt: execution.completedAt!,
  };
}

/**
 * A value as PostgreSQL's jsonb gives it back (and the API answers it): what a JSON text can hold,
 * so a params' `1e400` (Infinity once parsed) is hashed as the `null` stored, and the row and its
 * receipt always agree.
 */
export const asStored = <T>(value: T): T => JSON.parse(storableJson(value ?? null)) as T;

/** The receipt of an execution that ended, signed, as its end's statement stores it. */
export function signedReceipt(signer: ReceiptSigner, subject: ReceiptSubject): StoredReceipt {
  const preimage = receiptPreimage(receiptFieldsOf(subject, signer.key.publicKey, signer.tee));
  return {
    keyId: signer.key.id,
    preimage,
    signature: signReceipt(signer.key, preimage),
    hostCalls: subject.hostCalls,
    evidence: signer.evidence,
  };
}

/** What signs the end of an execution whose run never stored one. */
export interface LostEndDeps {
  em: EntityManager;
  /** Where its receipt's network magic is read: its automation run's network, or the default one. */
  networks: Networks;
  /** The process's signer; none: the end is stored unsigned, as every end of the process is. */
  receipts?: ReceiptSigner;
}

/**
 * The receipt of an execution ended without its run's end (every attempt failed, failExecution;
 * its workflow closed without it, the reconciler's endLost), to store in the statement that stores
 * `end`, so an execution has its receipt whichever path ended it, and only the first end stored
 * has one. It signs the version the execution was to run (`execution` read with its function),
 * its params, the error as its outcome, its logs and secrets read as the row holds them, and no
 * host calls (the row keeps none). Undefined with no signer, and for a `completed` end, which
 * here has lost its result: a receipt would sign a result no one has.
 */
export async function lostEndReceipt(
  deps: LostEndDeps,
  execution: Execution,
  end: End,
): Promise<StoredReceipt | undefined> {
  if (!deps.receipts || end.status !== executionStatus.failed) return undefined;
  const wanted = execution.functionVersion ?? execution.function.version;
  const version = { ...(await versionToRun(deps.em, execution)), version: wanted };
  const networkMagic = await magicOf(nodesOf(deps, execution));
  const { id, function: fn, params, startedAt } = execution;
  const { status, error, logs, secretsRead, completedAt } = end;
  const ended = { id, function: fn, params, startedAt, status, error, logs, secretsRead, completedAt };
  return signedReceipt(deps.receipts, receiptSubject(ended, { networkMagic, version, hostCalls: [] }, undefined));
}
