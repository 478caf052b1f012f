/**
 * hooks/: the `webhook` trigger (issue 49). A hook is found by its unguessable path
 * (hook.sql.ts), admitted by its token or an HMAC of its raw body (hook-credentials.ts), limited
 * per automation and per account, and recorded as a run once per delivery before it is answered
 * (here); its path and token are issued and rotated with the automation (hook-setup.ts).
 */
import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError, invalidRequest } from '../../errors.ts';
import type { AccountSlots } from '../../functions/account-slots.ts';
import { newId } from '../../ids.ts';
import { open, seal, type MasterKeys, type Sealed } from '../../crypto/envelope.ts';
import { sealContexts } from '../../crypto/seal-contexts.ts';
import { hooksReceived } from '../../metrics/metrics.ts';
import type { Rate } from '../../ratelimit/rate.ts';
import { takeHookToken } from '../../ratelimit/rate-limit-bucket.sql.ts';
import type { WorkflowStarter } from '../../temporal/workflow-starter.ts';
import { copiedHeaderNames, credentialHeaders, type WebhookTrigger } from '../model/webhook-trigger.schemas.ts';
import type { FirePayload } from '../model/run.entity.ts';
import { firedRun } from '../runs/fires.ts';
import { firstRun } from '../runs/run.sql.ts';
import { startRuns } from '../runs/start-runs.ts';
import { expireHookKey, findHook, hookRun, recordHookRun, type FoundHook } from './hook.sql.ts';
import {
  looksLikeHookPath,
  presentedToken,
  signatureRefusal,
  tokenMatches,
  type HmacAuth,
} from './hook-credentials.ts';

/** What a hook request brings: its path, its headers (by lower-case name), its raw body. */
interface HookRequest {
  path: string;
  header: (name: string) => string;
  raw: Buffer;
  /** The body parsed, once the request is admitted (json-body.ts's bounds and storable checks). */
  parse: (raw: Buffer) => unknown;
}

interface HookServices extends WorkflowStarter {
  em: EntityManager;
  /** This process's turns for admitted deliveries, by account (delivery-lanes.ts). */
  lanes: AccountSlots;
  masterKeys: MasterKeys;
  rates: { perAutomation: Rate; perAccount: Rate };
}

/** One answer for an unknown path and for wrong credentials: a client cannot tell them apart. */
export const hookNotFound = () => new AppError('not_found', 'No hook at this path accepts these credentials.');

const inactive = (status: string) =>
  new AppError('conflict', `The automation is ${status}: its hook records nothing until it is active.`);

/** A delivery key: an `Idempotency-Key`'s characters (idempotency.ts), or a dedup field's value. */
const deliveryKeyPattern = /^[\x21-\x7e]{1,255}$/;

const maxHeaderChars = 1024;

/**
 * Admits a hook request and records its run: 404 unless the path exists and the credentials
 * hold, 409 while the automation is not active (nothing recorded), 429 over its automation's or
 * its account's rate; then the run, recorded once per delivery key for 24 h, its workflow started
 * (or left to the reconciler if Temporal does not answer). Answers the run and whether it is a
 * repeat of an earlier delivery.
 */
export async function acceptHook(services: HookServices, request: HookRequest) {
  const { em } = services;
  // Over this process's bucket of its path, a request was refused before it came here (hookGate).
  // A path of another shape is no hook's: refused before it is held in a bucket or looked up, so
  // a flood of made-up paths costs neither memory nor a statement (its shape is no secret).
  if (!looksLikeHookPath(request.path)) return refuse('not_found', hookNotFound());
  const found = await findHook(em, request.path);
  if (!admitted(services.masterKeys, found, request)) return refuse('not_found', hookNotFound());
  if (found.status !== 'active') return refuse('inactive', inactive(found.status));
  const turn = await services.lanes.take(found.account_id);
  if (!turn) return refuse('rate_limited', overRate("this account's hooks", services.rates.perAccount, 1));
  try {
    return await recordDelivery(services, found, request);
  } finally {
    turn();
  }
}

/** A delivery admitted: its rates taken, its run recorded once per delivery key and started. */
async function recordDelivery(services: HookServices, found: FoundHook, request: HookRequest) {
  const { em } = services;
  await takeRates(services, found);
  const trigger = found.trigger as WebhookTrigger;
  const body = request.raw.length === 0 ? null : parseOrRefuse(request);
  const key = deliveryKey(trigger, body, request.header('idempotency-key'));
  const payload: FirePayload = {
    type: 'webhook',
    body,
    headers: copiedHeaders(trigger, request.header),
    receivedAt: new Date().toISOString(),
  };
  const fireKey = key === undefined ? `webhook:${newId('run')}` : `webhook:key:${sha256(key)}`;
  if (key !== undefined) await expireHookKey(em, found.automation_id, fireKey);
  // Recorded only if the automation is still active and the credential still its own: a pause, a
  // delete or a rotation committed since the lookup records nothing (hook.sql.ts).
  const recording = await recordHookRun(em, found, { id: newId('run'), fireKey, payload });
  if (recording.outcome === 'gone' || recording.outcome === 'refused') return refuse('not_found', hookNotFound());
  if (recording.outcome === 'inactive') return refuse('inactive', inactive(recording.status));
  const recorded = recording.outcome === 'recorded';
  const runId = recorded ? recording.id : (await firstRun(em, found.automation_id, fireKey)).id;
  if (recorded) {
    const functionId = recording.functionId ?? undefined;
    const run = firedRun(runId, found.account_id, found.automation_id, 'webhook', functionId);
    // Recorded, the run exists and runs once: a start Temporal refuses is the reconciler's.
    await startRuns({ ...services, reuse: 'REJECT_DUPLICATE' }, [run]).catch((error: unknown) => {
      services.log.warn('hook run stored, its start left to the reconciler', {
        runId: run.runId,
        error: String(error),
      });
    });
  }
  hooksReceived.inc({ outcome: recorded ? 'accepted' : 'repeated' });
  return { run: await hookRun(em, runId), repeated: !recorded };
}

function refuse(outcome: string, error: AppError): never {
  hooksReceived.inc({ outcome });
  throw error;
}

/**
 * Whether the request holds the hook's credential. Both checks run on every request, the found
 * hook's or stand-ins' (a sealed key opened, a token hash compared, an HMAC computed), so an
 * unknown path and a wrong credential take the same work.
 */
function admitted(masterKeys: MasterKeys, found: FoundHook | undefined, request: HookRequest): found is FoundHook {
  const trigger = found?.trigger.type === 'webhook' ? found.trigger : undefined;
  const auth: HmacAuth =
    trigger?.auth.type === 'hmac'
      ? trigger.auth
      : { type: 'hmac', secret: '_', header: 'x-signature', algorithm: 'sha256' };
  const key = hmacKey(masterKeys, found);
  const token = presentedToken(request.header('authorization'), request.header('x-neoflow-token'));
  const tokenHeld = tokenMatches(token, found?.token_hash ?? standInHash);
  const signed = signatureRefusal(auth, key ?? '', request.raw, request.header, Date.now() / 1000) === null;
  if (!found || !trigger) return false;
  if (trigger.auth.type === 'token') return found.token_hash !== null && tokenHeld;
  return key !== undefined && signed;
}

/** Compared when there is no hook or no token: a hash no token has (32 zero bytes). */
const standInHash = Buffer.alloc(32);

/** The HMAC key the trigger names, opened; a stand-in is opened when there is none. */
function hmacKey(masterKeys: MasterKeys, found: FoundHook | undefined): string | undefined {
  if (found?.ciphertext && found.wrapped_key && found.master_key_id && found.secret_id) {
    const sealed: Sealed = {
      ciphertext: found.ciphertext,
      wrappedKey: found.wrapped_key,
      masterKeyId: found.master_key_id,
    };
    return open(sealed, sealContexts.secret(found.secret_id, found.secret_version!), masterKeys);
  }
  open(standInOf(masterKeys), standInContext, masterKeys);
  return undefined;
}

const standInContext = 'hook-stand-in';
const standIns = new WeakMap<MasterKeys, Sealed>();
const standInOf = (masterKeys: MasterKeys) => {
  let sealed = standIns.get(masterKeys);
  if (!sealed) standIns.set(masterKeys, (sealed = seal('stand-in', standInContext, masterKeys)));
  return sealed;
};

/** One token from the automation's bucket, then one from its account's; 429 when either is empty. */
async function takeRates(services: HookServices, found: FoundHook) {
  const limits = [
    { bucket: `automation:${found.automation_id}`, rate: services.rates.perAutomation, of: 'this hook' },
    { bucket: `account:${found.account_id}`, rate: services.rates.perAccount, of: "this account's hooks" },
  ];
  for (const { bucket, rate, of } of limits) {
    const decision = await takeHookToken(services.em, bucket, rate).catch((error: unknown) => {
      // A bucket references its automation and account (migration 0039): one deleted since the
      // hook was found cannot have one made, and its hook is gone.
      if (isForeignKeyViolation(error)) refuse('not_found', hookNotFound());
      throw error;
    });
    if (decision.allowed) continue;
    refuse('rate_limited', overRate(of, rate, decision.retryAfterSeconds));
  }
}

const isForeignKeyViolation = (error: unknown) => (error as { code?: unknown } | null)?.code === '23503';

export const overRate = (of: string, rate: Rate, wait: number) =>
  new AppError(
    'rate_limit_exceeded',
    `Requests to ${of} are over the rate of ${rate.requests} per ${rate.windowSeconds} s; retry in ${wait} s.`,
    { limit: rate.requests, windowSeconds: rate.windowSeconds, retryAfter: wait },
    { 'Retry-After': String(wait) },
  );

function parseOrRefuse(request: HookRequest): unknown {
  try {
    return request.parse(request.raw);
  } catch (error) {
    if (error instanceof AppError) refuse('invalid', error);
    throw error;
  }
}

/**
 * What names the delivery: the `Idempotency-Key` header, or else the body's field the trigger
 * names (a string or a number), whose value is bounded as the header is.
 */
function deliveryKey(trigger: WebhookTrigger, body: unknown, header: string): string | undefined {
  const fromBody = trigger.dedupField === undefined ? undefined : fieldAt(body, trigger.dedupField);
  const key = header || (typeof fromBody === 'number' ? String(fromBody) : fromBody);
  if (key === undefined || key === '') return undefined;
  if (typeof key !== 'string' || !deliveryKeyPattern.test(key)) {
    const source = header ? 'Idempotency-Key' : `The body's "${trigger.dedupField}"`;
    refuse('invalid', invalidRequest(`${source} must be 1 to 255 visible ASCII characters.`));
  }
  return key;
}

function fieldAt(body: unknown, path: string): unknown {
  let value = body;
  for (const segment of path.split('.')) {
    if (typeof value !== 'object' || value === null || Array.isArray(value) || !Object.hasOwn(value, segment))
      return undefined;
    value = (value as Record<string, unknown>)[segment];
  }
  return value;
}

/** content-type, user-agent and the headers the trigger names, lower-cased, each value bounded. */
function copiedHeaders(trigger: WebhookTrigger, header: (name: string) => string): Record<string, string> {
  const copied: Record<string, string> = {};
  for (const name of copiedHeaderNames(trigger)) {
    const value = header(name);
    if (value && !credentialHeaders.includes(name)) copied[name] = value.slice(0, maxHeaderChars);
  }
  return copied;
}

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
