import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  conditionHolds,
  fetchPriceBody,
  quoteIn,
  isStale,
  PriceSourceError,
  readQuote,
  resolvePriceSource,
  type ResolvedPriceSource,
} from '../../src/automations/price/price-source.ts';
import { egressPolicy, parseEgressAllow } from '../../src/egress/egress-policy.ts';
import { closeServer } from '../support/close-server.ts';

describe('price sources', () => {
  it('reads CoinGecko by coin id, in the lower-case currency', () => {
    const source = resolvePriceSource({ preset: 'coingecko' }, 'NEO', 'USD');
    expect(source).toEqual({
      url: 'https://api.coingecko.com/api/v3/simple/price?ids=neo&vs_currencies=usd&include_last_updated_at=true',
      pricePath: 'neo.usd',
      timestampPath: 'neo.last_updated_at',
    });
    const quote = readQuote({ neo: { usd: 4.12, last_updated_at: 1700000000 } }, source);
    expect(quote).toEqual({ price: '4.12', observedAt: new Date('2023-11-14T22:13:20Z') });
  });

  it.each([
    ['BTC', 'bitcoin'],
    ['ETH', 'ethereum'],
    ['GAS', 'gas'],
    ['FLM', 'flm'],
  ])('names %s %s on CoinGecko', (asset, id) => {
    expect(resolvePriceSource({ preset: 'coingecko' }, asset, 'EUR').pricePath).toBe(`${id}.eur`);
  });

  it('reads Binance in USDT when asked for USD, with its millisecond close time', () => {
    const source = resolvePriceSource({ preset: 'binance' }, 'NEO', 'USD');
    expect(source).toEqual({
      url: 'https://api.binance.com/api/v3/ticker/24hr?symbol=NEOUSDT',
      pricePath: 'lastPrice',
      timestampPath: 'closeTime',
    });
    const body = { symbol: 'NEOUSDT', lastPrice: '4.12000000', closeTime: 1700000000123, openTime: 1699913600123 };
    expect(readQuote(body, source)).toEqual({ price: '4.12', observedAt: new Date(1700000000123) });
    expect(resolvePriceSource({ preset: 'binance' }, 'GAS', 'BTC').url).toMatch(/symbol=GASBTC$/);
  });

  it('fills placeholders of a custom source, encoding them in the URL only', () => {
    const spec = { url: 'https://prices.example/{asset}/{currency_lower}?q={asset_lower}', path: 'data.{asset_lower}' };
    expect(resolvePriceSource(spec, 'A&B', 'USD')).toEqual({
      url: 'https://prices.example/A%26B/usd?q=a%26b',
      pricePath: 'data.a&b',
    });
    const dated = { ...spec, timestampPath: 'data.{asset}.time' };
    expect(resolvePriceSource(dated, 'NEO', 'USD').timestampPath).toBe('data.NEO.time');
  });

  it.each(['ftp://prices.example/{asset}', 'not a url', 'file:///etc/passwd'])('refuses the URL %j', (url) => {
    expect(() => resolvePriceSource({ url, path: 'price' }, 'NEO', 'USD')).toThrow(PriceSourceError);
  });

  describe('reading a quote', () => {
    const at = (pricePath: string, timestampPath?: string): ResolvedPriceSource => ({
      url: 'https://x.example',
      pricePath,
      ...(timestampPath && { timestampPath }),
    });

    it('follows dotted paths through objects and arrays', () => {
      expect(readQuote({ items: [{ price: 1 }, { price: '2.50' }] }, at('items.1.price')).price).toBe('2.5');
      expect(readQuote({ data: { price: '0.00001234' } }, at('data.price'))).toEqual({
        price: '0.00001234',
        observedAt: null,
      });
    });

    it('keeps every digit of a price sent as a string', () => {
      expect(readQuote({ p: '0.30000000000000004' }, at('p')).price).toBe('0.30000000000000004');
      expect(readQuote({ p: '123456789012345678901234567890' }, at('p')).price).toBe('123456789012345678901234567890');
    });

    it('writes a price sent as an exponent number as plain decimal', () => {
      expect(readQuote({ p: 1e-7 }, at('p')).price).toBe('0.0000001');
      expect(readQuote({ p: 1.5e21 }, at('p')).price).toBe('1500000000000000000000');
    });

    it.each([
      [{}, 'the price source has no number at "data.price" (found nothing)'],
      [{ data: null }, 'found nothing'],
      [{ data: { price: 'n/a' } }, 'the price source has no number at "data.price" (found "n/a")'],
      [{ data: { price: true } }, '(found true)'],
      [{ data: { price: { value: 1 } } }, '(found {"value":1})'],
      [{ data: { price: '' } }, '(found "")'],
      [[1, 2], 'found nothing'],
      [{ data: { price: '9'.repeat(1_000_000) } }, '(found "9999999999'],
      [{ data: { price: 1e70 } }, '(found 1e+70)'],
      ['4.12', 'found nothing'],
    ])('refuses a body without a price: %j', (body, message) => {
      const read = () => readQuote(body, at('data.price'));
      expect(read).toThrow(PriceSourceError);
      expect(read).toThrow(message);
    });

    it('does not read inherited properties as prices', () => {
      expect(() => readQuote({}, at('constructor.length'))).toThrow(PriceSourceError);
    });

    it.each([
      [1700000000, '2023-11-14T22:13:20.000Z'],
      ['1700000000', '2023-11-14T22:13:20.000Z'],
      [1700000000.5, '2023-11-14T22:13:20.500Z'],
      [1700000000123, '2023-11-14T22:13:20.123Z'],
      ['2024-03-01T12:00:00Z', '2024-03-01T12:00:00.000Z'],
      ['2024-03-01T13:00:00.250+01:00', '2024-03-01T12:00:00.250Z'],
    ])('reads the timestamp %j', (time, iso) => {
      expect(readQuote({ p: 1, t: time }, at('p', 't')).observedAt?.toISOString()).toBe(iso);
    });

    it.each([undefined, null, 'yesterday', 'March 1, 2024', 0, -5, true])('refuses the timestamp %j', (time) => {
      expect(() => readQuote({ p: 1, t: time }, at('p', 't'))).toThrow(/^the price source has no timestamp at "t"/);
    });
  });

  describe('fetching', () => {
    let server: Server;
    let base: string;
    const answers = new Map<string, (response: ServerResponse) => void>([
      ['/dated', (res) => res.setHeader('content-type', 'application/json').end('{"price":"4.5","time":1700000000}')],
      ['/undated', (res) => res.setHeader('content-type', 'application/json').end('{"data":{"price":4.25}}')],
      ['/precise', (res) => res.end('{"price":10.000000000000000001}')],
      ['/missing', (res) => res.writeHead(404).end('{"error":"no such pair"}')],
      ['/html', (res) => res.setHeader('content-type', 'text/html').end('<html>maintenance</html>')],
      ['/slow', (res) => setTimeout(() => res.end('{"price":1}'), 2_000).unref()],
    ]);

    beforeAll(async () => {
      server = createServer((req, res) => answers.get(req.url ?? '')?.(res) ?? res.writeHead(500).end());
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });

    afterAll(async () => {
      await closeServer(server);
    });

    const fetchedAt = () => new Date('2025-01-01T00:00:00Z');
    // The test's source is on loopback, which the guard refuses unless allowed.
    const egress = egressPolicy(parseEgressAllow('127.0.0.1'));
    // One read, parsed with the source's paths: what a price poller does for each of its triggers.
    const fetchQuote = async (source: ResolvedPriceSource, options: Parameters<typeof fetchPriceBody>[1]) =>
      quoteIn(await fetchPriceBody(source.url, options), source);

    it('takes the time the source gives', async () => {
      const quote = await fetchQuote(
        { url: `${base}/dated`, pricePath: 'price', timestampPath: 'time' },
        { egress, timeoutMs: 1_000, fetchedAt },
      );
      expect(quote).toEqual({ price: '4.5', observedAt: new Date(1700000000 * 1000) });
    });

    it('dates a quote without a time by the response', async () => {
      const quote = await fetchQuote(
        { url: `${base}/undated`, pricePath: 'data.price' },
        { egress, timeoutMs: 1_000, fetchedAt },
      );
      expect(quote).toEqual({ price: '4.25', observedAt: fetchedAt() });
    });

    it('keeps a JSON number exactly as the source wrote it, beyond what a float holds', async () => {
      const quote = await fetchQuote(
        { url: `${base}/precise`, pricePath: 'price' },
        { egress, timeoutMs: 1_000, fetchedAt },
      );
      expect(quote.price).toBe('10.000000000000000001');
    });

    it.each([
      ['/missing', /^the price source 127\.0\.0\.1:\d+ answered HTTP 404$/],
      ['/html', /^the price source 127\.0\.0\.1:\d+ did not answer JSON$/],
      ['/slow', /^the price source 127\.0\.0\.1:\d+ did not answer within 200 ms$/],
      ['/undated', /^the price source has no number at "price"/],
    ])('fails on %s', async (path, message) => {
      const attempt = fetchQuote({ url: `${base}${path}`, pricePath: 'price' }, { egress, timeoutMs: 200 });
      await expect(attempt).rejects.toThrow(PriceSourceError);
      await expect(attempt).rejects.toThrow(message);
    });

    it('fails when nothing listens', async () => {
      const closed = createServer();
      await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
      const { port } = closed.address() as AddressInfo;
      await new Promise((resolve) => closed.close(resolve));
      await expect(
        fetchQuote({ url: `http://127.0.0.1:${port}/`, pricePath: 'p' }, { egress, timeoutMs: 1_000 }),
      ).rejects.toThrow(/^the price source 127\.0\.0\.1:\d+ could not be reached: .*ECONNREFUSED/);
    });
  });

  describe('staleness', () => {
    const now = new Date('2025-01-01T12:00:00Z');
    const quoteAt = (offsetMs: number) => ({ price: '1', observedAt: new Date(now.getTime() + offsetMs) });

    it('is fresh up to the maximum age, stale beyond it', () => {
      expect(isStale(quoteAt(-60_000), now, 60_000)).toBe(false);
      expect(isStale(quoteAt(-60_001), now, 60_000)).toBe(true);
    });

    it('forgives a minute of clock skew, not more', () => {
      expect(isStale(quoteAt(60_000), now, 60_000)).toBe(false);
      expect(isStale(quoteAt(60_001), now, 60_000)).toBe(true);
    });

    it('counts a quote of unknown age as stale', () => {
      expect(isStale({ price: '1', observedAt: null }, now, 60_000)).toBe(true);
    });
  });

  describe('conditions', () => {
    it.each([
      ['4.13', 'above', '4.12', true],
      ['4.12', 'above', '4.12', false],
      ['4.1200', 'below', '4.12', false],
      ['4.11', 'below', '4.12', true],
      ['0.30000000000000004', 'above', '0.3', true],
      ['-1', 'below', '0', true],
    ] as const)('%s %s %s: %s', (price, condition, value, holds) => {
      expect(conditionHolds(price, condition, value)).toBe(holds);
    });
  });
});
