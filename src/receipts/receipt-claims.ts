import { createHash } from 'node:crypto';
import { canonicalBytes } from './canonical-json.ts';
import { teeType, type ReceiptFields, type ReceiptStatus } from './receipt-preimage.ts';

/** SHA-256 of bytes or of a UTF-8 string. */
export const sha256 = (data: Uint8Array | string) => createHash('sha256').update(data).digest();

/** SHA-256 of a JSON value's canonical form (RFC 8785). */
export const jsonHash = (value: unknown) => sha256(canonicalBytes(value));

/** What a function's version ran with, as its receipt's configHash covers it. */
interface RunConfig {
  runtime: string;
  timeout: number;
  environment: Record<string, string>;
  /** The secrets granted to it, by name (not those read: secretsReadHash covers those). */
  secrets: string[];
  allowedHosts: string[];
  version: number;
}

/** One call the code made out of its isolate, in order: a chain read or a fetch. */
export interface HostCall {
  /** `getBalance`, `getBlockCount`, `invokeRead` or the HTTP method of a fetch. */
  method: string;
  /** What was read: an address and asset, a contract and operation, a host; `` for getBlockCount. */
  target: string;
  /** Hex SHA-256 of the canonical JSON of what the call answered, or of `{error}` when it failed. */
  resultHash: string;
}

/** An ended execution as its receipt describes it, every value as stored. */
export interface ReceiptSubject {
  networkMagic: number;
  executionId: string;
  functionId: string;
  code: string;
  config: RunConfig;
  params: unknown;
  status: ReceiptStatus;
  /** The result of a completed run (null for none), or the error of a failed one. */
  outcome: unknown;
  logs: unknown;
  secretsRead: { name: string; version: number }[];
  hostCalls: HostCall[];
  startedAt: Date;
  completedAt: Date;
}

/** Evidence that the key lives in measured hardware; none on an ordinary host. */
export interface TeeEvidence {
  type: number;
  hash: Buffer;
}

export const noTee: TeeEvidence = { type: teeType.none, hash: Buffer.alloc(32) };

/** The hashes of a subject, as its receipt's preimage holds them. */
export function receiptFieldsOf(subject: ReceiptSubject, publicKey: Buffer, tee: TeeEvidence = noTee): ReceiptFields {
  return {
    networkMagic: subject.networkMagic,
    executionIdHash: sha256(subject.executionId),
    functionIdHash: sha256(subject.functionId),
    codeHash: sha256(subject.code),
    configHash: jsonHash(subject.config),
    inputHash: jsonHash(subject.params),
    status: subject.status,
    outcomeHash: jsonHash(subject.outcome),
    logsHash: jsonHash(subject.logs),
    secretsReadHash: jsonHash(subject.secretsRead),
    hostCallsHash: jsonHash(subject.hostCalls),
    startedAt: subject.startedAt.getTime(),
    completedAt: subject.completedAt.getTime(),
    publicKey,
    teeType: tee.type,
    evidenceHash: tee.hash,
  };
}
