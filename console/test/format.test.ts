import { describe, expect, it } from 'vitest';
import {
  cronInWords,
  failuresInRow,
  gasFromDecimal,
  gasFromFractions,
  localTime,
  shortHash,
  triggerInWords,
  utcTime,
} from '../src/format.ts';

describe('how the console writes values', () => {
  it('writes GAS fractions with 8 decimals, small and large amounts alike', () => {
    expect(gasFromFractions('1')).toBe('0.00000001');
    expect(gasFromFractions('123456789')).toBe('1.23456789');
    expect(gasFromFractions('100000000000')).toBe('1000.00000000');
    expect(gasFromFractions('0')).toBe('0.00000000');
    expect(gasFromFractions(null)).toBe('—');
    expect(gasFromFractions('1.5')).toBe('—');
  });

  it('writes decimal GAS amounts with 8 decimals', () => {
    expect(gasFromDecimal('5.5')).toBe('5.50000000');
    expect(gasFromDecimal('99.9632717')).toBe('99.96327170');
    expect(gasFromDecimal('0')).toBe('0.00000000');
    expect(gasFromDecimal(null)).toBe('—');
  });

  it('shortens a hash to its ends', () => {
    const hash = '0x' + 'ab'.repeat(32);
    expect(shortHash(hash)).toBe('0xabab…ababab');
    expect(shortHash('0x1234')).toBe('0x1234');
  });

  it("writes a time in the browser's zone and the same instant in UTC for the hover", () => {
    const iso = '2026-12-07T04:05:06.789Z';
    expect(utcTime(iso)).toBe('2026-12-07 04:05:06 UTC');
    expect(localTime(iso, 'en-GB', 'Asia/Tokyo')).toContain('13:05:06');
    expect(localTime(iso, 'en-GB', 'UTC')).toContain('04:05:06');
  });

  it('says triggers in words', () => {
    expect(triggerInWords({ type: 'schedule', cron: '* * * * *' })).toBe('every minute (* * * * *)');
    expect(triggerInWords({ type: 'schedule', cron: '*/5 * * * *', timezone: 'Europe/Berlin' })).toBe(
      'every 5 minutes (*/5 * * * *) (Europe/Berlin)',
    );
    expect(cronInWords('15 3 * * 1')).toBe('on the schedule 15 3 * * 1');
    expect(
      triggerInWords({
        type: 'blockchain',
        scriptHash: '0xd2a4cff31913016155e38e474a2c06d08be276cf',
        event: 'Transfer',
      }),
    ).toBe('Transfer events of 0xd2a4…e276cf');
    expect(triggerInWords({ type: 'price', asset: 'NEO', condition: 'above', value: '10', currency: 'USD' })).toBe(
      'NEO rises above 10 USD',
    );
  });

  it('counts the failures at the head of a newest-first run list', () => {
    expect(failuresInRow([])).toBe(0);
    expect(failuresInRow([{ status: 'failure' }, { status: 'failure' }, { status: 'success' }])).toBe(2);
    expect(failuresInRow([{ status: 'running' }, { status: 'failure' }])).toBe(0);
    expect(failuresInRow([{ status: 'failure' }, { status: 'failure' }])).toBe(2);
  });
});
