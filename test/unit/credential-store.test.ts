import { randomBytes } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { describe, expect, it, vi } from 'vitest';
import type { Automation } from '../../src/automations/automation.entity.ts';
import type { Action, Trigger } from '../../src/automations/automations.schemas.ts';
import { sealCredentials } from '../../src/automations/credential-store.ts';

const masterKeys = { current: randomBytes(32), previous: [] };

/** An entity manager that only records what the sealing asks of it. */
function recordingEm() {
  const em = { find: vi.fn(async () => []), create: vi.fn(), remove: vi.fn() };
  return { em, asEm: em as unknown as EntityManager };
}

const automation = () => ({ id: 'auto_new' }) as Automation;
const trigger = {
  type: 'price',
  asset: 'NEO',
  currency: 'USD',
  condition: 'above',
  value: '1',
  source: { url: 'https://prices.example/{asset}?key=secret', path: 'price' },
} as unknown as Trigger;
const action = { type: 'function', functionId: 'func_x' } as Action;

describe('sealCredentials', () => {
  it('reads no stored credentials for an automation being created, and seals its own', async () => {
    const { em, asEm } = recordingEm();
    const created = automation();
    await sealCredentials(asEm, masterKeys, created, { trigger, action }, { created: true });
    expect(em.find).not.toHaveBeenCalled();
    expect(em.create).toHaveBeenCalledTimes(1);
    expect(JSON.stringify(created)).not.toContain('secret');
  });

  it('refuses a masked value on create: nothing is stored behind it', async () => {
    const { asEm } = recordingEm();
    const masked = { ...trigger, source: { url: 'https://prices.example/****', path: 'price' } } as Trigger;
    await expect(
      sealCredentials(asEm, masterKeys, automation(), { trigger: masked, action }, { created: true }),
    ).rejects.toThrow(/masked/);
  });

  it('reads the stored credentials of an automation being updated', async () => {
    const { em, asEm } = recordingEm();
    await sealCredentials(asEm, masterKeys, automation(), { trigger, action });
    expect(em.find).toHaveBeenCalledTimes(1);
  });
});
