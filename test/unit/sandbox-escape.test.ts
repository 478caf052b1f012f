import { describe, expect, it } from 'vitest';
import { resultOf } from '../support/sandbox.ts';

// Each probe yields a Function constructor reached some way; calling it must land in the isolate's
// own realm, where no host object exists.
const PROBES = `
const probeFunctions = async (context) => {
  const hostError = await context.services.blockchain.getBalance('bad', 'NEO').catch((e) => e);
  const hostValue = await context.services.blockchain.getBalance('NQ4', 'GAS');
  return {
    thisConstructor: this.constructor.constructor,
    objectLiteral: ({}).constructor.constructor,
    Function,
    params: context.params.constructor.constructor,
    paramsPrototype: Object.getPrototypeOf(context.params).constructor.constructor,
    nestedParam: context.params.nested.constructor.constructor,
    secrets: context.secrets.constructor.constructor,
    secretsGet: context.secrets.get.constructor,
    secretsGetResult: context.secrets.get('TOKEN').constructor.constructor,
    getBalance: context.services.blockchain.getBalance.constructor,
    getBalancePrototype: Object.getPrototypeOf(context.services.blockchain.getBalance).constructor,
    randomBytes: context.services.random.bytes.constructor,
    logInfo: context.log.info.constructor,
    hostResult: hostValue.constructor.constructor,
    hostError: hostError.constructor.constructor,
    hostErrorPrototype: Object.getPrototypeOf(hostError).constructor.constructor,
  };
};
const inspectRealm = async (F) => {
  // Async functions lead to AsyncFunction, whose functions return a promise.
  const probe = await F('return [typeof process, typeof require, typeof global, typeof Buffer, globalThis]')();
  return { types: probe.slice(0, 4).join(','), sameRealm: probe[4] === globalThis };
};
`;

describe('sandbox escapes', () => {
  it('reaches only the isolate realm through constructor chains, Function and host-passed values', async () => {
    const code = `${PROBES}
module.exports = async (context) => {
  const found = {};
  for (const [name, F] of Object.entries(await probeFunctions(context))) found[name] = await inspectRealm(F);
  return found;
};`;
    const result = (await resultOf(code, {
      params: { nested: { a: 1 } },
      secrets: [{ name: 'TOKEN', value: 't' }],
    })) as Record<string, unknown>;
    expect(Object.keys(result)).toHaveLength(16);
    for (const [name, realm] of Object.entries(result)) {
      expect([name, realm]).toEqual([name, { types: 'undefined,undefined,undefined,undefined', sameRealm: true }]);
    }
  });

  it('exposes no Reference or other foreign object anywhere in the context', async () => {
    const code = `module.exports = async (context) => {
      const known = new Set([Object.prototype, Function.prototype, Array.prototype,
        Object.getPrototypeOf(async () => {})]);
      const seen = new Set();
      const foreign = [];
      const walk = (value, path) => {
        if ((typeof value !== 'object' && typeof value !== 'function') || value === null || seen.has(value)) return;
        seen.add(value);
        if (!known.has(Object.getPrototypeOf(value))) foreign.push(path);
        for (const key of Reflect.ownKeys(value)) {
          const descriptor = Object.getOwnPropertyDescriptor(value, key);
          if ('value' in descriptor && key !== 'prototype') walk(descriptor.value, path + '.' + String(key));
        }
      };
      walk(context, 'context');
      return { foreign, objects: seen.size };
    };`;
    const result = await resultOf(code, { secrets: [{ name: 'TOKEN', value: 't' }] });
    expect(result).toMatchObject({ foreign: [], objects: expect.any(Number) });
    expect((result as { objects: number }).objects).toBeGreaterThan(15);
  });

  it('gives service functions no host this, and no caller to climb to', async () => {
    // A sloppy, non-async handler: the one kind of function whose caller V8 would reveal.
    const code = `module.exports = function handler(context) {
      const caller = handler.caller;
      return probe(context, caller);
    };
    async function probe(context, caller) {
      const { blockchain } = context.services;
      const detached = blockchain.getBlockCount;
      return {
        thisIsPlain: Object.getPrototypeOf(blockchain) === Object.prototype,
        detachedWorks: (await detached.call(undefined)) === 4242,
        withForeignThis: await blockchain.getBlockCount.call({ evil: true }),
        caller,
        functionInArgs: await blockchain.invokeRead('0x1', 'op', [() => this]).catch((e) => e.name + ': ' + e.message),
      };
    }`;
    expect(await resultOf(code)).toEqual({
      thisIsPlain: true,
      detachedWorks: true,
      withForeignThis: 4242,
      caller: null,
      functionInArgs: expect.stringMatching(/^ServiceArgumentError: .* a function is not JSON data/),
    });
  });

  it('reveals no bootstrap function or receiver through structured stack traces', async () => {
    const code = `module.exports = async ({ log, services, ...context }) => {
      const leaks = [];
      let bootstrapFrames = 0;
      Error.prepareStackTrace = (_error, frames) => {
        // A script's own code runs as eval code named by its sourceURL (its file name is empty).
        for (const frame of frames.filter((f) => f.getScriptNameOrSourceURL() !== 'function.js')) {
          bootstrapFrames += 1;
          if (frame.getFunction() || frame.getThis()) leaks.push(frame.getFileName());
        }
        return '';
      };
      log.info({ toJSON: () => new Error().stack });
      await context.secrets.get({ toString: () => new Error().stack }).catch(() => null);
      await services.blockchain.getBalance('bad', 'NEO').catch((e) => e.stack);
      return { leaks, bootstrapFrames };
    };`;
    const result = (await resultOf(code)) as { leaks: string[]; bootstrapFrames: number };
    expect(result.leaks).toEqual([]);
    expect(result.bootstrapFrames).toBeGreaterThan(0);
  });

  it('reaches only the isolate realm from every standard global, its results and its callbacks', async () => {
    const code = `${PROBES}
module.exports = async () => {
  const callbackThis = await new Promise((resolve) => setTimeout(function () { resolve(this); }, 0));
  const callbackArgs = await new Promise((resolve) => setTimeout((...args) => resolve(args), 0, 'a'));
  const waitResult = await new Promise((resolve) => setTimeout(resolve, 0));
  const url = new URL('https://example.com/?a=1');
  const made = {
    setTimeout, clearTimeout, TextEncoder, TextDecoder, atob, btoa, structuredClone, URL, URLSearchParams,
    getRandomValues: crypto.getRandomValues, randomUUID: crypto.randomUUID, crypto,
    encoded: new TextEncoder().encode('x'), decoded: new TextDecoder().decode(new Uint8Array([120])),
    random: crypto.getRandomValues(new Uint8Array(2)), uuid: crypto.randomUUID(),
    url, searchParams: url.searchParams, entriesNext: url.searchParams.entries().next,
    cloned: structuredClone({ m: new Map([[1, new Date(0)]]) }), timerId: setTimeout(() => {}, 0),
    base64: atob(btoa('x')), callbackArgs, waitResult,
    callbackThis: callbackThis ?? {}, timerError: structuredClone(new RangeError('r')),
  };
  const found = {};
  for (const [name, value] of Object.entries(made)) {
    const F = Object(value).constructor.constructor;
    found[name] = await inspectRealm(F);
  }
  found.callbackThisIsGlobal = { types: 'undefined,undefined,undefined,undefined', sameRealm: callbackThis === undefined || callbackThis === globalThis };
  return found;
};`;
    const result = (await resultOf(code)) as Record<string, unknown>;
    expect(Object.keys(result)).toHaveLength(27);
    for (const [name, realm] of Object.entries(result)) {
      expect([name, realm]).toEqual([name, { types: 'undefined,undefined,undefined,undefined', sameRealm: true }]);
    }
  });

  it("keeps no host object in the standard globals: a walk finds only the isolate's own objects", async () => {
    const code = `module.exports = async () => {
      const isolatedVmClasses = ['Reference', 'ExternalCopy', 'Dereference', 'Isolate', 'Context', 'Callback', 'Script', 'Module'];
      const names = ['setTimeout', 'clearTimeout', 'TextEncoder', 'TextDecoder', 'atob', 'btoa', 'structuredClone',
        'URL', 'URLSearchParams', 'crypto'];
      const seen = new Set();
      const foreign = [];
      const walk = (value, path) => {
        if ((typeof value !== 'object' && typeof value !== 'function') || value === null || seen.has(value)) return;
        seen.add(value);
        const prototype = Object.getPrototypeOf(value);
        if (prototype !== null && ![Object.prototype, Function.prototype].includes(prototype) && !seen.has(prototype)) {
          walk(prototype, path + '.__proto__');
        }
        for (const key of Reflect.ownKeys(value)) {
          const descriptor = Object.getOwnPropertyDescriptor(value, key);
          for (const part of [descriptor.value, descriptor.get, descriptor.set]) walk(part, path + '.' + String(key));
        }
        // Another realm's object is no instance of this realm's Object; isolated-vm's own handles
        // (a Reference to a host function) are known by their class.
        const className = typeof value.constructor === 'function' ? value.constructor.name : '';
        if (!(value instanceof Object) || isolatedVmClasses.includes(className)) foreign.push(path);
      };
      for (const name of names) walk(globalThis[name], name);
      return { foreign, objects: seen.size };
    };`;
    const result = (await resultOf(code)) as { foreign: string[]; objects: number };
    expect(result.foreign).toEqual([]);
    expect(result.objects).toBeGreaterThan(40);
  });

  it('has no require, process, global or dynamic import()', async () => {
    const code = `
const topLevel = [typeof require, typeof process, typeof global, typeof setInterval];
module.exports = async () => ({
  topLevel,
  inside: [typeof require, typeof process, typeof global],
  importFs: await import('fs').then(() => 'imported', (e) => 'rejected: ' + e.message),
  importData: await import('data:text/javascript,export default 1').then(() => 'imported', () => 'rejected'),
});`;
    expect(await resultOf(code)).toEqual({
      topLevel: ['undefined', 'undefined', 'undefined', 'undefined'],
      inside: ['undefined', 'undefined', 'undefined'],
      importFs: 'rejected: Not supported',
      importData: 'rejected',
    });
  });
});
