import type { EntityManager } from '@mikro-orm/postgresql';
import type { Config } from '../config.ts';
import type { EgressPolicy } from '../egress/egress-policy.ts';
import type { PriceTrigger } from './automations.schemas.ts';
import { activePriceRow } from './automation.sql.ts';
import { conditionHolds, fetchQuote, isStale, resolvePriceSource, type Quote } from './price-source.ts';
import { quoteKey, type QuoteCache } from './quote-cache.ts';
import { revealCredentials } from './credential-store.ts';
import { mapTrigger } from './credentials.ts';
import type { MasterKeys } from '../crypto/envelope.ts';
import { recordRuns, type FiredRun } from './runs.ts';
import { stopWithError } from './notifications/error-event.ts';

export interface PriceCheckInput {
  automationId: string;
  /** Whether the condition was false (or unknown) since the last fire. */
  armed: boolean;
  /** Names the run this check fires, if it does. */
  fireKey: string;
  /** Polls in a row before this one that read no usable price, and when the first of them ran. */
  failures?: number;
  failingSince?: string | null;
  /** The condition `armed` was decided for (conditionKey); null from a poller started before it. */
  armedFor?: string | null;
}

type PriceCheck =
  | { kind: 'stopped' }
  | {
      kind: 'checked';
      armed: boolean;
      run: FiredRun | null;
      intervalMs: number;
      problem?: string;
      failures: number;
      failingSince: string | null;
      armedFor: string;
    };

const fetchTimeoutMs = 10_000;

interface PriceCheckDeps {
  em: EntityManager;
  defaults: Config['automations'];
  egress: EgressPolicy;
  /** Unseal a custom source's URL (src/automations/credential-store.ts). */
  masterKeys: MasterKeys;
  /** The worker's recent reads, shared by the pollers of the same source. */
  quotes: QuoteCache;
}

/**
 * One poll: reads the price and decides (see `decide`), and counts the polls in a row that could
 * not read a usable price. At `NEOFLOW_TRIGGER_FAILURES` of them the trigger cannot be evaluated:
 * the automation moves to `error` with the reason, the time it began and the last problem, and
 * the poller stops (a PATCH to `active` starts it again).
 */
export async function checkPrice(deps: PriceCheckDeps, input: PriceCheckInput): Promise<PriceCheck> {
  const { em, defaults } = deps;
  const automation = await activePriceAutomation(em, input.automationId);
  if (!automation) return { kind: 'stopped' };
  // A condition changed since the poller decided `armed` (a PATCH that could not restart the
  // poller, Temporal being down) is a new trigger: armed, as a poller started for it would be.
  const armedFor = conditionKey(automation.trigger);
  const changed = input.armedFor !== undefined && input.armedFor !== null && input.armedFor !== armedFor;
  const check = { ...(await decide(deps, automation, changed ? { ...input, armed: true } : input)), armedFor };
  if (check.problem === undefined) return { ...check, failures: 0, failingSince: null };
  const failures = (input.failures ?? 0) + 1;
  const failingSince = input.failingSince ?? new Date().toISOString();
  if (failures < defaults.triggerFailureLimit) return { ...check, failures, failingSince };
  const errorDetails = {
    reason: 'trigger_unavailable' as const,
    message: `The price could not be read in ${failures} polls in a row.`,
    since: failingSince,
    lastError: check.problem,
  };
  // Only if still active with this trigger: a PATCH meanwhile wins. Its notifications are
  // delivered by the recovery sweep: this activity starts no workflow.
  await stopWithError(em, { id: automation.id, status: 'active', triggerType: 'price' }, errorDetails);
  return { kind: 'stopped' };
}

/** What a price trigger's armed state is about: its asset, currency, condition and value. */
const conditionKey = (trigger: PriceTrigger) =>
  JSON.stringify([trigger.asset, trigger.currency, trigger.condition, trigger.value]);

interface PriceAutomation {
  id: string;
  account: { id: string };
  trigger: PriceTrigger;
}

/**
 * A plain row, not an entity: every poll of every price automation reads it, and only reads it.
 * Null once the automation is deleted, paused or in error, or its trigger is no longer a price.
 */
async function activePriceAutomation(em: EntityManager, id: string): Promise<PriceAutomation | null> {
  const row = await activePriceRow(em, id);
  return row ? { id, account: { id: row.account_id }, trigger: row.trigger } : null;
}

/**
 * Reads the price once and decides: fire (condition true while armed), re-arm (condition
 * false), or wait. A stale price, or none at all, decides nothing.
 */
async function decide(
  { em, defaults, egress, masterKeys, quotes }: PriceCheckDeps,
  automation: PriceAutomation,
  input: PriceCheckInput,
): Promise<{ armed: boolean; run: FiredRun | null; intervalMs: number; problem?: string; kind: 'checked' }> {
  const { trigger } = automation;
  const intervalMs = trigger.pollInterval ? trigger.pollInterval * 1000 : defaults.pricePollMs;
  const unchanged = { kind: 'checked' as const, armed: input.armed, run: null, intervalMs };
  let quote: Quote;
  try {
    // A custom source's URL is unsealed only now, for this read.
    const revealed = await revealCredentials(em, masterKeys, automation.id, (r) => mapTrigger(trigger, r));
    const spec = revealed.source ?? { preset: defaults.pricePreset };
    const source = resolvePriceSource(spec, trigger.asset, trigger.currency);
    const key = quoteKey(source.url, 'preset' in spec, automation.account.id);
    quote = await quotes.read(key, () => fetchQuote(source, { egress, timeoutMs: fetchTimeoutMs }));
  } catch (error) {
    return { ...unchanged, problem: error instanceof Error ? error.message : String(error) };
  }
  const maxAgeMs = trigger.maxAge ? trigger.maxAge * 1000 : defaults.priceMaxAgeMs;
  if (isStale(quote, new Date(), maxAgeMs)) return { ...unchanged, problem: 'the price is stale' };
  if (!conditionHolds(quote.price, trigger.condition, trigger.value)) return { ...unchanged, armed: true };
  if (!input.armed) return unchanged;
  const payload = {
    type: 'price' as const,
    asset: trigger.asset,
    currency: trigger.currency,
    price: quote.price,
    observedAt: quote.observedAt?.toISOString() ?? null,
  };
  const [run] = await recordRuns(em, [{ automation, fireKey: input.fireKey, payload }]);
  return { ...unchanged, armed: false, run: run! };
}
