import { describe, expect, it } from 'vitest';
import { isTimeZone } from '../../src/automations/model/time-zones.ts';

const intlKnows = (name: string) => {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
};

describe('time zones a schedule may name', () => {
  it.each(['UTC', 'Europe/Berlin', 'America/New_York', 'Asia/Kolkata', 'Asia/Calcutta', 'US/Pacific', 'Etc/GMT+5'])(
    'knows %j',
    (name) => {
      expect(isTimeZone(name)).toBe(true);
    },
  );

  // Lower-case spellings and offsets pass Intl but not the server's Go time.LoadLocation.
  it.each(['', 'Mars/Olympus_Mons', 'utc', 'america/new_york', 'America/NEW_YORK', '+05:30', 'Europe/Berlin '])(
    'refuses %j',
    (name) => {
      expect(isTimeZone(name)).toBe(false);
    },
  );

  // ICU's legacy ids and names the IANA database dropped: Intl takes them, Go's loader does not.
  it.each(['PST', 'IST', 'CTT', 'SystemV/PST8', 'US/Pacific-New', 'Canada/East-Saskatchewan'])(
    'refuses %j, which Intl accepts and Temporal’s server does not',
    (name) => {
      expect(intlKnows(name)).toBe(true);
      expect(isTimeZone(name)).toBe(false);
    },
  );

  // `Local` is the server's own zone to Go, and no zone at all to Intl.
  it('refuses the names Go treats specially', () => {
    expect(isTimeZone('Local')).toBe(false);
  });

  it('knows every canonical zone of Intl, so no real zone is refused', () => {
    expect(Intl.supportedValuesOf('timeZone').filter((name) => !isTimeZone(name))).toEqual([]);
  });
});
