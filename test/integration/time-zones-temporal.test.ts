import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@temporalio/client';
import { timeZoneNames } from '../../src/automations/model/time-zones.ts';
import { connectTestTemporal } from '../support/temporal.ts';

/** The names of the files in a zip archive, read from its central directory. */
function zipEntryNames(zip: Buffer): string[] {
  const end = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  const count = zip.readUInt16LE(end + 10);
  let at = zip.readUInt32LE(end + 16);
  const names: string[] = [];
  for (let entry = 0; entry < count; entry++) {
    const nameLength = zip.readUInt16LE(at + 28);
    names.push(zip.toString('utf8', at + 46, at + 46 + nameLength));
    at += 46 + nameLength + zip.readUInt16LE(at + 30) + zip.readUInt16LE(at + 32);
  }
  return names;
}

let client: Client;
let close: () => Promise<void>;

beforeAll(async () => {
  const connected = await connectTestTemporal();
  client = connected.client;
  close = () => connected.connection.close();
});

afterAll(() => close?.());

describe("the time zones a schedule may name are the Temporal server's", () => {
  it("lists every zone of the IANA database the server's Go loads, less Factory, and no other", () => {
    const goRoot = execFileSync('go', ['env', 'GOROOT'], { encoding: 'utf8' }).trim();
    const zones = zipEntryNames(readFileSync(join(goRoot, 'lib/time/zoneinfo.zip')))
      .filter((name) => !name.endsWith('/') && name !== 'Factory')
      .sort();
    expect([...timeZoneNames].sort()).toEqual(zones);
  });

  it('has the server accept a schedule in each listed zone, and refuse a name Intl takes but Go does not', async () => {
    const schedule = (timezone: string, index: number) => ({
      scheduleId: `time-zone-check-${index}`,
      spec: { calendars: [{ hour: 3 }], timezone },
      action: { type: 'startWorkflow' as const, workflowType: 'ping', taskQueue: 'time-zone-check' },
      state: { paused: true },
    });
    const refused: string[] = [];
    for (let first = 0; first < timeZoneNames.length; first += 16) {
      await Promise.all(
        timeZoneNames.slice(first, first + 16).map(async (zone, offset) => {
          const handle = await client.schedule.create(schedule(zone, first + offset)).catch(() => refused.push(zone));
          if (typeof handle === 'object') await handle.delete();
        }),
      );
    }
    expect(refused).toEqual([]);
    expect(new Intl.DateTimeFormat('en', { timeZone: 'SystemV/PST8' }).resolvedOptions().timeZone).toBeTruthy();
    await expect(client.schedule.create(schedule('SystemV/PST8', -1))).rejects.toThrow();
  }, 300_000);
});
