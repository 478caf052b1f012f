/**
 * price/: price triggers. One poller workflow per source (price-pollers.control.ts writes them from
 * rows) calls this check at each poll: it reads the source once (price-source.ts) and decides each
 * automation reading it: fire (its runs recorded here), re-arm or wait. automation-price.sql.ts
 * holds the triggers' rows and states; price-read-floor.ts refuses a read more often than allowed.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Config } from '../../config.ts';
import type { EgressPolicy } from '../../egress/egress-policy.ts';
import type { PriceTrigger } from '../model/trigger.schemas.ts';
import {
  conditionHolds,
  customSourceAt,
  fetchPriceBody,
  isStale,
  quoteIn,
  resolvePriceSource,
  type PriceBody,
  type ResolvedPriceSource,
} from './price-source.ts';
import { assertSealed, revealSealed } from '../credentials/credential-store.ts';
import { sealedTriggerCredentials } from '../credentials/credential.sql.ts';
import { mapTrigger } from '../credentials/credentials.ts';
import { priceSourceKey } from './price-source-key.ts';
import type { MasterKeys, Sealed } from '../../crypto/envelope.ts';
import { recordRuns, firedRun, type FiredRun, type Firing } from '../runs/fires.ts';
import { stopWithError } from '../notifications/error-event.ts';
import { noteRunEnds } from '../notifications/run-end.ts';
import { capPerAccount, refusedByCap } from '../runs/run-cap.ts';
import type { FirePayload } from '../model/run.entity.ts';
import {
  activePriceRows,
  lockPriceRows,
  runsOfPoll,
  savePriceStates,
  type PriceRow,
  type PriceState,
} from './automation-price.sql.ts';

export interface PriceSourceCheckInput {
  /** The source's key (price-source-key.ts): never its URL. */
  source: string;
  /** Names this poll: the runs it fires, and the states it wrote (a repeated poll writes none again). */
  pollKey: string;
}

type PriceSourceCheck =
  /** No active automation reads the source any more: its poller ends. */
  | { kind: 'idle' }
  /** The runs this poll fired, and when to poll again: the shortest interval among the automations. */
  | { kind: 'checked'; runs: FiredRun[]; intervalMs: number };

const fetchTimeoutMs = 10_000;

interface PriceCheckDeps {
  em: EntityManager;
  defaults: Config['automations'];
  egress: EgressPolicy;
  /** Unseal a custom source's URL (src/automations/credentials/credential-store.ts). */
  masterKeys: MasterKeys;
  /** Where a trigger's problem is told (a poll's result, kept in history, carries none). */
  warn: (automationId: string, problem: string) => void;
}

/** What one trigger decided at one poll. */
interface Decision {
  row: PriceRow;
  state: PriceState;
  fire: FirePayload | null;
  problem?: string;
}

/**
 * One poll of a source: reads it once for every automation whose own interval has elapsed, and
 * decides each (see `decide`): fire (condition true while armed), re-arm (condition false), or
 * wait; a stale price, or none at all, decides nothing and counts a failure. At
 * `NEOFLOW_TRIGGER_FAILURES` polls in a row that read no usable price the trigger cannot be
 * evaluated: the automation moves to `error` with the reason, the time it began and the last
 * problem (a PATCH to `active` arms it again). What each trigger decided is written with the runs
 * it fired, in one transaction: a poll repeated (its activity retried) fires nothing twice, and
 * starts again the runs it recorded.
 */
export async function checkPriceSource(deps: PriceCheckDeps, input: PriceSourceCheckInput): Promise<PriceSourceCheck> {
  const { em, defaults } = deps;
  const rows = await activePriceRows(em, input.source);
  if (rows.length === 0) return { kind: 'idle' };
  const intervalMs = Math.min(...rows.map((row) => intervalOf(row.trigger, defaults)));
  const now = new Date();
  const repeated = rows.filter((row) => row.poll_key === input.pollKey).map((row) => row.id);
  const due = rows.filter((row) => row.poll_key !== input.pollKey && isDue(row, now, intervalMs, defaults));
  const custom = due.filter(({ trigger }) => trigger.source && 'url' in trigger.source).map(({ id }) => id);
  const poll: Poll = {
    now,
    pollKey: input.pollKey,
    source: input.source,
    sealed: custom.length === 0 ? new Map<string, Map<string, Sealed>>() : await sealedTriggerCredentials(em, custom),
    reads: new Map(),
  };
  const decisions: Decision[] = [];
  // One at a time: a custom source's URL, unsealed for the first automation, serves those after it.
  for (const row of due) decisions.push(await decide(deps, row, poll));
  for (const { row, problem } of decisions) if (problem !== undefined) deps.warn(row.id, problem);
  const kept = await em.transactional(async (tx) => {
    const current = await lockPriceRows(
      tx,
      decisions.map(({ row }) => row.id),
    );
    // A row changed since it was read (a PATCH) keeps what the PATCH made of it.
    const unchanged = decisions.filter(({ row }) => current.get(row.id)?.getTime() === row.updated_at.getTime());
    const firings = unchanged.flatMap(({ row, fire }): Firing[] =>
      fire
        ? [{ automation: { id: row.id, account: { id: row.account_id } }, fireKey: input.pollKey, payload: fire }]
        : [],
    );
    const capped = capPerAccount(firings, defaults.runsPerRead, `Poll ${input.pollKey} of this price source`);
    const recorded = await recordRuns(tx, capped);
    await noteRunEnds(
      tx,
      recorded.filter((_, index) => capped[index]!.error).map((run) => run.runId),
    );
    const fired = recorded.filter((_, index) => !refusedByCap(capped[index]!));
    await savePriceStates(
      tx,
      unchanged.map(({ state }) => state),
    );
    return { unchanged, fired };
  });
  for (const { row, state, problem } of kept.unchanged) {
    if (problem !== undefined && state.failures >= defaults.triggerFailureLimit)
      await stopFailing(em, row, state, problem);
  }
  const again = repeated.length === 0 ? [] : await runsOfPoll(em, input.pollKey, repeated);
  const runs = [...kept.fired, ...again.map((run) => firedRun(run.id, run.account_id, run.automation_id, 'price'))];
  return { kind: 'checked', runs, intervalMs };
}

/** What a price trigger's armed state is about: its asset, currency, condition and value. */
const conditionKey = (trigger: PriceTrigger) =>
  JSON.stringify([trigger.asset, trigger.currency, trigger.condition, trigger.value]);

const intervalOf = (trigger: PriceTrigger, defaults: Config['automations']) =>
  trigger.pollInterval ? trigger.pollInterval * 1000 : defaults.pricePollMs;

/**
 * Whether the automation's own interval has elapsed since it was last evaluated: the poller
 * polls at the shortest interval of its automations, and one with a longer interval is evaluated
 * only every so many polls. Half a poll's slack keeps a poll that wakes a little early from
 * pushing it a whole poll later. Never evaluated, or its condition changed since: due now.
 */
function isDue(row: PriceRow, now: Date, pollMs: number, defaults: Config['automations']) {
  if (row.checked_at === null || row.condition_key !== conditionKey(row.trigger)) return true;
  return now.getTime() - row.checked_at.getTime() >= intervalOf(row.trigger, defaults) - pollMs / 2;
}

interface Poll {
  now: Date;
  pollKey: string;
  /** The source's key: a custom URL unsealed is the source's own if it makes this key. */
  source: string;
  /** The sealed trigger credentials of the due automations with a custom source, read in one statement. */
  sealed: Map<string, Map<string, Sealed>>;
  /** The source's URL, filled in, once unsealed for one of its automations (a custom source). */
  url?: string;
  /** The source's reads of this poll, by URL: each read once, whoever asks. */
  reads: Map<string, Promise<PriceBody>>;
}

/** Decides one trigger from the source's read of this poll. */
async function decide(deps: PriceCheckDeps, row: PriceRow, poll: Poll): Promise<Decision> {
  const { trigger } = row;
  // A condition changed since the state was decided (the row written without the service) is a
  // new trigger: armed, as one created with it would be.
  const known = row.condition_key === conditionKey(trigger);
  const before = {
    armed: known ? (row.armed ?? true) : true,
    failures: known ? (row.failures ?? 0) : 0,
    failingSince: known ? row.failing_since : null,
  };
  const state = (armed: boolean, failing?: { failures: number; failingSince: Date }): PriceState => ({
    automationId: row.id,
    conditionKey: conditionKey(trigger),
    armed,
    failures: failing?.failures ?? 0,
    failingSince: failing?.failingSince ?? null,
    checkedAt: poll.now,
    pollKey: poll.pollKey,
  });
  const failed = (problem: string): Decision => ({
    row,
    fire: null,
    problem,
    state: state(before.armed, { failures: before.failures + 1, failingSince: before.failingSince ?? poll.now }),
  });
  let quote;
  try {
    const source = sourceOf(deps, row, poll);
    let read = poll.reads.get(source.url);
    if (!read) {
      read = fetchPriceBody(source.url, { egress: deps.egress, timeoutMs: fetchTimeoutMs });
      // Judged by each trigger below; a rejection no trigger awaited yet is not unhandled.
      read.catch(() => undefined);
      poll.reads.set(source.url, read);
    }
    quote = quoteIn(await read, source);
  } catch (error) {
    return failed(error instanceof Error ? error.message : String(error));
  }
  const maxAgeMs = trigger.maxAge ? trigger.maxAge * 1000 : deps.defaults.priceMaxAgeMs;
  if (isStale(quote, poll.now, maxAgeMs)) return failed('the price is stale');
  if (!conditionHolds(quote.price, trigger.condition, trigger.value)) return { row, fire: null, state: state(true) };
  if (!before.armed) return { row, fire: null, state: state(false) };
  const fire = {
    type: 'price' as const,
    asset: trigger.asset,
    currency: trigger.currency,
    price: quote.price,
    observedAt: quote.observedAt?.toISOString() ?? null,
  };
  return { row, fire, state: state(false) };
}

/**
 * Where the trigger reads its price. A custom source's URL is unsealed only now, for this read, and
 * once a poll: every automation of the source has the same account and the same URL filled in (its
 * key is made of them), so the URL unsealed for the first serves the others, each with its own
 * paths. Unsealed, a URL that does not make the source's key (the row changed since it was named)
 * serves its own automation only. An automation served so fails as its own unsealing would if its
 * URL is not stored, or is wrapped by a master key not held; that its stored URL still has the mask
 * its row shows is not checked: an update writes both, and `updated_at`, in one transaction, so a
 * row that differs was changed since this poll read it, and what the poll decides of it is dropped
 * (lockPriceRows), whatever it decided.
 */
function sourceOf(deps: PriceCheckDeps, row: PriceRow, poll: Poll): ResolvedPriceSource {
  const { trigger } = row;
  const spec = trigger.source ?? { preset: deps.defaults.pricePreset };
  if (!('url' in spec)) return resolvePriceSource(spec, trigger.asset, trigger.currency);
  const sealed = poll.sealed.get(row.id) ?? new Map<string, Sealed>();
  const custom = { ...trigger, source: spec };
  const walk = (replace: Parameters<typeof mapTrigger>[1]) => mapTrigger(custom, replace);
  if (poll.url !== undefined) {
    assertSealed(sealed, deps.masterKeys, walk);
    return customSourceAt(spec, poll.url, trigger.asset, trigger.currency);
  }
  const { url } = revealSealed(sealed, deps.masterKeys, row.id, walk).source;
  const source = resolvePriceSource({ ...spec, url }, trigger.asset, trigger.currency);
  if (priceSourceKey(trigger, row.account_id, url) === poll.source) poll.url = source.url;
  return source;
}

/**
 * Moves the automation to `error`, only if still active with this trigger: a PATCH meanwhile
 * wins. Its notifications are delivered by the recovery sweep: this activity starts no workflow.
 */
async function stopFailing(em: EntityManager, row: PriceRow, state: PriceState, problem: string) {
  await stopWithError(
    em,
    { id: row.id, status: 'active', triggerType: 'price' },
    {
      reason: 'trigger_unavailable',
      message: `The price could not be read in ${state.failures} polls in a row.`,
      since: (state.failingSince ?? state.checkedAt).toISOString(),
      lastError: problem,
    },
  );
}
