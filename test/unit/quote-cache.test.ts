import { describe, expect, it } from 'vitest';
import { QuoteCache, quoteKey } from '../../src/automations/quote-cache.ts';
import type { Quote } from '../../src/automations/price-source.ts';

const quote = (price: string): Quote => ({ price, observedAt: new Date(0) });

/** A cache on a clock the test moves, and a source that counts its reads. */
function setup(maxEntries?: number) {
  let now = 0;
  const cache = new QuoteCache({ reuseMs: 1_000, now: () => now, ...(maxEntries ? { maxEntries } : {}) });
  let reads = 0;
  const source = (price: string) => () => {
    reads++;
    return Promise.resolve(quote(price));
  };
  return { cache, source, reads: () => reads, advance: (ms: number) => void (now += ms) };
}

describe('the quote cache', () => {
  it('answers every poll of a source within a second from one read, and reads again after it', async () => {
    const { cache, source, reads, advance } = setup();
    expect(await cache.read('a', source('1'))).toEqual(quote('1'));
    advance(999);
    expect(await cache.read('a', source('2'))).toEqual(quote('1'));
    expect(reads()).toBe(1);
    advance(1);
    expect(await cache.read('a', source('3'))).toEqual(quote('3'));
    expect(reads()).toBe(2);
  });

  it('shares a read in flight however long it takes, and reads again once it has ended', async () => {
    const { cache, advance } = setup();
    let finish!: (value: Quote) => void;
    let reads = 0;
    const slow = () => {
      reads++;
      return new Promise<Quote>((resolve) => (finish = resolve));
    };
    const first = cache.read('a', slow);
    advance(5_000);
    const second = cache.read('a', slow);
    finish(quote('7'));
    expect(await Promise.all([first, second])).toEqual([quote('7'), quote('7')]);
    expect(reads).toBe(1);
    expect(await cache.read('a', () => Promise.resolve(quote('8')))).toEqual(quote('8'));
  });

  it('shares a failed read within the second, so a failing source is not asked by every poller', async () => {
    const { cache, advance } = setup();
    let reads = 0;
    const failing = () => {
      reads++;
      return Promise.reject(new Error('HTTP 429'));
    };
    await expect(cache.read('a', failing)).rejects.toThrow('HTTP 429');
    await expect(cache.read('a', failing)).rejects.toThrow('HTTP 429');
    expect(reads).toBe(1);
    advance(1_000);
    await expect(cache.read('a', failing)).rejects.toThrow('HTTP 429');
    expect(reads).toBe(2);
  });

  it('keeps sources apart, and forgets the source read longest ago once full', async () => {
    const { cache, source, reads } = setup(2);
    await cache.read('a', source('1'));
    await cache.read('b', source('2'));
    expect(await cache.read('a', source('x'))).toEqual(quote('1'));
    await cache.read('c', source('3'));
    expect(reads()).toBe(3);
    expect(await cache.read('a', source('4'))).toEqual(quote('4'));
    expect(await cache.read('c', source('y'))).toEqual(quote('3'));
    expect(reads()).toBe(4);
  });

  it('shares a preset among accounts but never a custom URL, which may carry an API key', () => {
    const url = 'https://prices.example/neo?key=secret';
    expect(quoteKey(url, true, 'acct_a')).toBe(quoteKey(url, true, 'acct_b'));
    expect(quoteKey(url, false, 'acct_a')).not.toBe(quoteKey(url, false, 'acct_b'));
    expect(quoteKey(url, false, 'acct_a')).not.toBe(quoteKey(url, true, 'acct_a'));
  });
});
