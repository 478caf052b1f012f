import { describe, expect, it } from 'vitest';
import { refusalOf } from '../../src/functions/storage/commit-rules.ts';
import { MemoryStore } from '../../src/functions/storage/memory-store.ts';
import { RunStorage } from '../../src/functions/storage/run-storage.ts';
import { storageLimits } from '../../src/functions/storage/storage-limits.ts';
import type { SandboxOutcome } from '../../src/sandbox/types.ts';
import { run } from '../support/sandbox.ts';

/** Runs `code` with a store seeded from `values`; the run's storage is returned beside its outcome. */
async function runWith(code: string, values: Record<string, unknown> = {}, maxServiceCalls = 1000) {
  const store = new MemoryStore(values);
  const storage = new RunStorage(store.reader());
  const outcome = await run(code, { storage, maxServiceCalls });
  return { outcome, storage, store };
}

const errorOf = (outcome: SandboxOutcome) => (outcome.status === 'failed' ? outcome.error : undefined);
const resultOf = (outcome: SandboxOutcome) => (outcome.status === 'completed' ? outcome.result : outcome.error);

describe('context.storage inside a run', () => {
  it('reads its own buffered writes and deletes, over the committed store, and pages list by cursor', async () => {
    const { outcome, storage, store } = await runWith(
      `module.exports = async ({ storage }) => {
        await storage.set('a/2', 2);
        await storage.delete('a/1');
        await storage.set('a/3', { three: true });
        const page = await storage.list({ prefix: 'a/', limit: 2 });
        const rest = await storage.list({ prefix: 'a/', limit: 2, cursor: page.cursor });
        return { page, rest, two: await storage.get('a/2'), one: await storage.get('a/1'), zero: await storage.getEntry('a/0') };
      };`,
      { 'a/0': 'zero', 'a/1': 'one', b: 'bee' },
    );
    expect(resultOf(outcome)).toEqual({
      page: { keys: ['a/0', 'a/2'], cursor: 'a/2' },
      rest: { keys: ['a/3'] },
      two: 2,
      zero: { value: 'zero', version: 1 },
    });
    // Nothing committed until the caller commits the run's changes.
    expect(store.values()).toEqual({ 'a/0': 'zero', 'a/1': 'one', b: 'bee' });
    expect(storage.keys()).toEqual({ read: ['a/0', 'a/1', 'a/2'], written: ['a/1', 'a/2', 'a/3'] });
    expect(store.commit(storage.changes()!)).toBeUndefined();
    expect(store.values()).toEqual({ 'a/0': 'zero', 'a/2': 2, 'a/3': { three: true }, b: 'bee' });
  });

  it('keeps versions at the committed ones within the run: ifVersion holds against them at commit', async () => {
    const code = `module.exports = async ({ storage }) => {
      const { value = 0, version } = await storage.getEntry('n');
      await storage.set('n', value + 1, { ifVersion: version });
      return storage.getEntry('n');
    };`;
    const first = await runWith(code);
    expect(resultOf(first.outcome)).toEqual({ value: 1, version: 0 });
    const second = await runWith(code);
    // Two runs read the same version: the first commit wins, the second is refused.
    expect(first.store.commit(first.storage.changes()!)).toBeUndefined();
    expect(
      refusalOf(second.storage.changes()!, new Map([['n', { version: 1, size: 1 }]]), { keys: 1, bytes: 1 }),
    ).toEqual({
      name: 'StorageConflict',
      message: 'n is at version 1, not 0 (ifVersion); nothing was written.',
    });
  });

  it.each([
    ['a key over 256 characters', `storage.get('k'.repeat(257))`, 'StorageKeyError'],
    ['an empty key', `storage.set('', 1)`, 'StorageKeyError'],
    ['a key with a control character', `storage.delete('a\\nb')`, 'StorageKeyError'],
    ['an undefined value', `storage.set('k', undefined)`, 'StorageValueError'],
    ['a value over 64 KiB', `storage.set('k', 'x'.repeat(64 * 1024))`, 'StorageValueError'],
    [
      'two different ifVersions of one key',
      `storage.set('k', 1, { ifVersion: 1 }).then(() => storage.set('k', 2, { ifVersion: 2 }))`,
      'StorageConflict',
    ],
    ['a negative ifVersion', `storage.set('k', 1, { ifVersion: -1 })`, 'StorageError'],
    ['a list limit over 1,000', `storage.list({ limit: 1001 })`, 'StorageError'],
    ['a list prefix holding U+0000', `storage.list({ prefix: 'a\\u0000' })`, 'StorageError'],
  ])('throws a named error the code can catch for %s', async (_what, call, name) => {
    const { outcome } = await runWith(
      `module.exports = async ({ storage }) => { try { await ${call}; return 'no error'; } catch (error) { return error.name; } };`,
    );
    expect(resultOf(outcome)).toBe(name);
  });

  it('takes a value of 64 KiB as JSON, its key beside it', async () => {
    const { outcome, storage } = await runWith(
      `module.exports = async ({ storage }) => { await storage.set('k'.repeat(256), 'x'.repeat(64 * 1024 - 2)); };`,
    );
    expect(outcome.status).toBe('completed');
    expect(storage.changes()!.sets[0]!.bytes).toBe(storageLimits.valueBytes);
  });

  it("counts storage calls toward the run's quota of service calls", async () => {
    const { outcome } = await runWith(
      `module.exports = async ({ storage }) => { for (let i = 0; i < 11; i++) await storage.get('k'); };`,
      {},
      10,
    );
    expect(errorOf(outcome)?.name).toBe('ServiceQuotaError');
  });

  it("refuses in the run a buffer over the function's 4 MiB", async () => {
    const { outcome } = await runWith(
      `module.exports = async ({ storage }) => { for (let i = 0; i < 70; i++) await storage.set('k' + i, 'x'.repeat(65000)); };`,
    );
    expect(errorOf(outcome)).toMatchObject({ name: 'StorageQuotaError' });
  });

  it('fails every call with StorageError when the run has no store', async () => {
    const outcome = await run(`module.exports = async ({ storage }) => storage.get('k');`);
    expect(errorOf(outcome)).toMatchObject({
      name: 'StorageError',
      message: 'context.storage is not available to this run.',
    });
  });
});

describe('the rules of a commit', () => {
  const set = (key: string, bytes: number) => ({ key, value: null, json: 'null', bytes });
  it('refuses what would exceed the quotas, and takes what shrinks a store already over them', () => {
    const full = { keys: storageLimits.keys, bytes: 10 };
    const added = { sets: [set('new', 4)], deletes: [], conditions: new Map() };
    expect(refusalOf(added, new Map(), full)?.name).toBe('StorageQuotaError');
    const replaced = { sets: [set('old', 4)], deletes: [], conditions: new Map() };
    expect(refusalOf(replaced, new Map([['old', { version: 1, size: 4 }]]), full)).toBeUndefined();
    const big = { keys: 1, bytes: storageLimits.bytes + 100 };
    const smaller = { sets: [set('old', 50)], deletes: [], conditions: new Map() };
    expect(refusalOf(smaller, new Map([['old', { version: 1, size: 100 }]]), big)).toBeUndefined();
    const bigger = { sets: [set('old', 150)], deletes: [], conditions: new Map() };
    expect(refusalOf(bigger, new Map([['old', { version: 1, size: 100 }]]), big)?.name).toBe('StorageQuotaError');
  });

  it('checks ifVersion 0 as "the key must not exist"', () => {
    const create = { sets: [set('k', 1)], deletes: [], conditions: new Map([['k', 0]]) };
    expect(refusalOf(create, new Map(), { keys: 0, bytes: 0 })).toBeUndefined();
    expect(refusalOf(create, new Map([['k', { version: 3, size: 1 }]]), { keys: 1, bytes: 1 })?.message).toBe(
      'k is at version 3, not 0 (ifVersion); nothing was written.',
    );
  });
});
