import { egressFetch, EgressError, type EgressResponse, type Resolver } from '../../egress/egress-fetch.ts';
import type { EgressPolicy } from '../../egress/egress-policy.ts';
import { compareDecimals, formatDecimal, maxDecimalChars, parseDecimal } from '../../chain/decimal.ts';

/** A preset public API, or any JSON endpoint with dotted paths to its price and timestamp. */
type PriceSourceSpec = { preset: 'coingecko' | 'binance' } | { url: string; path: string; timestampPath?: string };

/** A source with its placeholders filled in for one asset and currency. */
export interface ResolvedPriceSource {
  url: string;
  pricePath: string;
  timestampPath?: string;
}

interface Quote {
  /** Plain decimal text (decimalPattern): floats would misorder close prices. */
  price: string;
  /** When the source says it saw the price; null when it does not say. */
  observedAt: Date | null;
}

export class PriceSourceError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PriceSourceError';
  }
}

interface Template {
  url: string;
  path: string;
  timestampPath?: string | undefined;
}

interface Preset extends Template {
  /** The asset and currency as this API names them. */
  asset(symbol: string): string;
  currency(symbol: string): string;
}

// CoinGecko names coins by id, not by ticker symbol.
const coingeckoIds: Record<string, string> = { NEO: 'neo', GAS: 'gas', BTC: 'bitcoin', ETH: 'ethereum' };

const presets: Record<'coingecko' | 'binance', Preset> = {
  coingecko: {
    url: 'https://api.coingecko.com/api/v3/simple/price?ids={asset_lower}&vs_currencies={currency_lower}&include_last_updated_at=true',
    path: '{asset_lower}.{currency_lower}',
    timestampPath: '{asset_lower}.last_updated_at',
    asset: (symbol) => (Object.hasOwn(coingeckoIds, symbol) ? coingeckoIds[symbol]! : symbol.toLowerCase()),
    currency: (symbol) => symbol,
  },
  binance: {
    url: 'https://api.binance.com/api/v3/ticker/24hr?symbol={asset}{currency}',
    path: 'lastPrice',
    timestampPath: 'closeTime',
    asset: (symbol) => symbol,
    // Binance has no USD pairs; USDT tracks the dollar.
    currency: (symbol) => (symbol === 'USD' ? 'USDT' : symbol),
  },
};

interface Names {
  asset: string;
  currency: string;
}

/** The URL and JSON paths to read `asset` priced in `currency` from `spec`. */
export function resolvePriceSource(spec: PriceSourceSpec, asset: string, currency: string): ResolvedPriceSource {
  if (!('preset' in spec)) return resolve(spec, { asset, currency });
  const preset = presets[spec.preset];
  return resolve(preset, { asset: preset.asset(asset), currency: preset.currency(currency) });
}

/**
 * A custom source read from `url`, its URL already filled in (unsealed and filled for another
 * automation of the same source), its paths filled in for `asset` and `currency`.
 */
export function customSourceAt(
  spec: { path: string; timestampPath?: string },
  url: string,
  asset: string,
  currency: string,
): ResolvedPriceSource {
  return { url, ...paths(spec, { asset, currency }) };
}

function resolve(template: Template, names: Names): ResolvedPriceSource {
  const url = fill(template.url, names, encodeURIComponent);
  httpUrl(url);
  return { url, ...paths(template, names) };
}

function paths(template: Omit<Template, 'url'>, names: Names): Omit<ResolvedPriceSource, 'url'> {
  const pricePath = fill(template.path, names, String);
  if (template.timestampPath === undefined) return { pricePath };
  return { pricePath, timestampPath: fill(template.timestampPath, names, String) };
}

function fill(template: string, names: Names, encode: (text: string) => string): string {
  const values: Record<string, string> = {
    asset: names.asset,
    currency: names.currency,
    asset_lower: names.asset.toLowerCase(),
    currency_lower: names.currency.toLowerCase(),
  };
  return template.replace(/\{(asset|currency|asset_lower|currency_lower)\}/g, (_, name: string) =>
    encode(values[name]!),
  );
}

function httpUrl(url: string): URL {
  const parsed = URL.parse(url);
  if (parsed?.protocol !== 'https:' && parsed?.protocol !== 'http:') {
    throw new PriceSourceError(`the price source URL must be an http or https URL, not ${JSON.stringify(url)}`);
  }
  return parsed;
}

/** The price and its time in a response body; throws PriceSourceError naming the path that failed. */
export function readQuote(body: unknown, source: ResolvedPriceSource): Quote {
  const price = priceAt(body, source.pricePath);
  if (source.timestampPath === undefined) return { price, observedAt: null };
  return { price, observedAt: timeAt(body, source.timestampPath) };
}

function priceAt(body: unknown, path: string): string {
  const value = valueAt(body, path);
  const decimal = typeof value === 'string' || typeof value === 'number' ? parseDecimal(String(value)) : null;
  // Written out (1e70 is 71 digits), a price must stay as short as the trigger's value may be.
  const price = decimal ? formatDecimal(decimal) : '';
  if (!decimal || price.length > maxDecimalChars) {
    throw new PriceSourceError(`the price source has no number at "${path}" (found ${describe(value)})`);
  }
  return price;
}

function timeAt(body: unknown, path: string): Date {
  const value = valueAt(body, path);
  const time = typeof value === 'number' || typeof value === 'string' ? toDate(value) : null;
  if (!time) throw new PriceSourceError(`the price source has no timestamp at "${path}" (found ${describe(value)})`);
  return time;
}

function toDate(value: number | string): Date | null {
  const date = new Date(toMilliseconds(value));
  return Number.isNaN(date.getTime()) ? null : date;
}

// Unix seconds reach 1e11 only in the year 5138; unix milliseconds passed it in 1973.
function toMilliseconds(value: number | string): number {
  if (typeof value === 'string' && !/^\d+(\.\d+)?$/.test(value)) return isoTime(value);
  const unix = Number(value);
  if (!(unix > 0)) return NaN;
  return unix > 1e11 ? unix : unix * 1000;
}

function isoTime(text: string): number {
  return /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/.test(text)
    ? Date.parse(text)
    : NaN;
}

/** Follows a dotted path (`data.price`, `items.0.price`) through objects and arrays. */
function valueAt(body: unknown, path: string): unknown {
  let value = body;
  for (const key of path.split('.')) {
    if (typeof value !== 'object' || value === null || !Object.hasOwn(value, key)) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

function describe(value: unknown): string {
  if (value === undefined) return 'nothing';
  const text = JSON.stringify(value);
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}

interface FetchQuoteOptions {
  egress: EgressPolicy;
  timeoutMs: number;
  /** The clock that dates quotes whose source gives no time. */
  fetchedAt?: () => Date;
  resolve?: Resolver;
}

/**
 * A quote is a few hundred bytes; a source answering more than this is not a price source. The
 * cap keeps the parse on the worker's thread short: 16 KiB of number-heavy JSON, 0.36 ms.
 */
const maxQuoteBytes = 16 * 1024;

/** A source's answer, read once and parsed for every trigger of the source (each its own paths). */
export interface PriceBody {
  body: unknown;
  /** When it was read: the time of a quote whose source gives none. */
  fetchedAt: Date;
}

/** GETs the source through the egress guard; any failure is a PriceSourceError. */
export async function fetchPriceBody(url: string, options: FetchQuoteOptions): Promise<PriceBody> {
  // The host only: a custom URL may carry an API key in its query.
  const { host } = httpUrl(url);
  const body = await fetchJson(url, host, options);
  return { body, fetchedAt: (options.fetchedAt ?? (() => new Date()))() };
}

/** The quote `source`'s paths find in a body read; throws PriceSourceError as readQuote does. */
export function quoteIn(read: PriceBody, source: ResolvedPriceSource): Quote {
  const quote = readQuote(read.body, source);
  return quote.observedAt ? quote : { ...quote, observedAt: read.fetchedAt };
}

async function fetchJson(url: string, host: string, options: FetchQuoteOptions): Promise<unknown> {
  let response: EgressResponse;
  try {
    const request = {
      url,
      headers: { accept: 'application/json' },
      timeoutMs: options.timeoutMs,
      maxBytes: maxQuoteBytes,
    };
    response = await egressFetch(options.egress, request, options.resolve);
  } catch (error) {
    throw new PriceSourceError(`the price source ${error instanceof EgressError ? error.message : host}`);
  }
  if (response.status < 200 || response.status > 299) {
    throw new PriceSourceError(`the price source ${host} answered HTTP ${response.status}`);
  }
  try {
    return parseKeepingNumberText(response.body.toString('utf8'));
  } catch {
    throw new PriceSourceError(`the price source ${host} did not answer JSON`);
  }
}

/**
 * JSON.parse turns `10.000000000000000001` into the float 10: numbers are kept as their source
 * text instead (the reviver's context, Node 22+), so prices compare exactly.
 */
function parseKeepingNumberText(text: string): unknown {
  const reviver = (_key: string, value: unknown, context?: { source?: string }) =>
    typeof value === 'number' && context?.source !== undefined ? context.source : value;
  return JSON.parse(text, reviver);
}

/**
 * Whether the quote is too old to act on. An unknown time counts as stale. A time in the future
 * is fresh within a minute of clock skew; beyond that the source's clock is wrong, so stale too.
 */
export function isStale(quote: Quote, now: Date, maxAgeMs: number): boolean {
  if (!quote.observedAt) return true;
  const age = now.getTime() - quote.observedAt.getTime();
  return age > maxAgeMs || age < -60_000;
}

/** Whether `price` is strictly above or strictly below `value` (both decimal text). */
export function conditionHolds(price: string, condition: 'above' | 'below', value: string): boolean {
  const order = compareDecimals(price, value);
  return condition === 'above' ? order > 0 : order < 0;
}
