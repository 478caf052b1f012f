import { randomBytes } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { describe, expect, it, vi } from 'vitest';
import type { Automation } from '../../src/automations/model/automation.entity.ts';
import type { Trigger } from '../../src/automations/model/trigger.schemas.ts';
import type { Action } from '../../src/automations/model/action.schemas.ts';
import { sealCredentials, sealNewCredentials } from '../../src/automations/credentials/credential-store.ts';
import { open } from '../../src/crypto/envelope.ts';
import { sealContexts } from '../../src/crypto/seal-contexts.ts';

const masterKeys = { current: randomBytes(32), previous: [] };

/** An entity manager that only records what the sealing asks of it. */
function recordingEm() {
  const em = { find: vi.fn(async () => []), create: vi.fn(), remove: vi.fn() };
  return { em, asEm: em as unknown as EntityManager };
}

const automation = () => ({ id: 'auto_new' }) as Automation;
const url = 'https://prices.example/{asset}?key=secret';
const trigger = {
  type: 'price',
  asset: 'NEO',
  currency: 'USD',
  condition: 'above',
  value: '1',
  source: { url, path: 'price' },
} as unknown as Trigger;
const action = { type: 'function', functionId: 'func_x' } as Action;

describe('sealNewCredentials', () => {
  it("seals a new automation's credentials for its insert, leaving their masks in its columns", () => {
    const created = automation();
    const { clear, sealed } = sealNewCredentials(masterKeys, created, { trigger, action });
    expect(clear).toEqual(new Map([['trigger.source.url', url]]));
    expect(sealed.map(({ path }) => path)).toEqual(['trigger.source.url']);
    const context = sealContexts.credential(created.id, 'trigger.source.url');
    expect(open(sealed[0]!, context, masterKeys)).toBe(url);
    expect(JSON.stringify(created)).not.toContain('secret');
  });

  it('refuses a masked value on create: nothing is stored behind it', () => {
    const masked = { ...trigger, source: { url: 'https://prices.example/****', path: 'price' } } as Trigger;
    expect(() => sealNewCredentials(masterKeys, automation(), { trigger: masked, action })).toThrow(/masked/);
  });
});

describe('sealCredentials', () => {
  it('reads the stored credentials of an automation being updated, and stores its own in the unit of work', async () => {
    const { em, asEm } = recordingEm();
    await sealCredentials(asEm, masterKeys, automation(), { trigger, action });
    expect(em.find).toHaveBeenCalledTimes(1);
    expect(em.create).toHaveBeenCalledTimes(1);
  });
});

describe('a masked header', () => {
  const stored = automation();
  const webhook = (url: string, token: string) =>
    ({ type: 'webhook', url, headers: { Authorization: token }, signingSecret: 'S' }) as unknown as Action;

  /** An entity manager holding the credentials `action` was sealed with. */
  function holding(action: Action) {
    const { sealed } = sealNewCredentials(masterKeys, stored, { action });
    const em = { find: vi.fn(async () => sealed), create: vi.fn(), remove: vi.fn() };
    return em as unknown as EntityManager;
  }

  it('keeps the stored value while its URL keeps the stored origin', async () => {
    const em = holding(webhook('https://hooks.example/a', 'Bearer stored'));
    const clear = await sealCredentials(em, masterKeys, stored, {
      action: webhook('https://hooks.example:443/b', '****'),
    });
    expect(clear.get('action.headers.Authorization')).toBe('Bearer stored');
  });

  it.each([
    ['another host', 'https://attacker.example/a'],
    ['another port', 'https://hooks.example:8443/a'],
    ['another scheme', 'http://hooks.example/a'],
  ])('is refused, naming the header, when its URL moves to %s', async (_what, url) => {
    const em = holding(webhook('https://hooks.example/a', 'Bearer stored'));
    const update = sealCredentials(em, masterKeys, stored, { action: webhook(url, '****') });
    await expect(update).rejects.toMatchObject({ details: { field: 'action.headers.Authorization' } });
  });
});
