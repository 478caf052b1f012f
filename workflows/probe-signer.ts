import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import type { ProbeSignerWorkflow } from '../src/shared/workflow-signatures.ts';

/**
 * One attempt, never retried: the API waits for the answer (at most 15 s) and a backend not
 * reachable now is its 503, which the client may try again; a retry here would outlast that wait.
 */
const { probeSignerKey } = proxyActivities<Activities>({
  startToCloseTimeout: '10 seconds',
  retry: { maximumAttempts: 1 },
});

/**
 * The probe of a new aws-kms or pkcs11 signer's key (id `signer-probe-<signerId>`): on a worker,
 * since the API process never touches a key's backend. Only the reference goes in and the public
 * key or the refusal comes out: no secret passes through its history.
 */
export const probeSigner: ProbeSignerWorkflow = async (input) => probeSignerKey(input);
