// Runs inside the isolate, before the user's code. It turns plain data and two host references into
// the runtime context. The references stay in this closure: user code can reach neither, only the
// wrappers below, which copy arguments and results by value.
// eslint-disable-next-line @typescript-eslint/no-unused-expressions -- the host evaluates this expression.
(function bootstrap(hostCall, hostLog, data) {
  'use strict';
  // Captured now, so that user code replacing globals cannot change how results and logs leave.
  const { stringify } = JSON;
  const { defineProperty, hasOwn, freeze } = Object;
  const callSync = hostCall.applySync.bind(hostCall);
  const callAsync = hostCall.apply.bind(hostCall);
  const sendLog = hostLog.applyIgnored.bind(hostLog);
  // Null prototypes: user code polluting Object.prototype must not add transfer options.
  const copy = freeze({ __proto__: null, copy: true });
  const syncOptions = freeze({ __proto__: null, arguments: copy, result: copy });
  const asyncOptions = freeze({
    __proto__: null,
    arguments: copy,
    result: freeze({ __proto__: null, promise: true, copy: true }),
  });
  let logLines = 0;

  function unwrap(reply) {
    if (reply.ok) return reply.value;
    throw new Error(reply.message);
  }

  function random(name, args) {
    return unwrap(callSync(undefined, [`random.${name}`, args], syncOptions));
  }

  // Measured here, before the host copies them: a string built in the isolate has no other bound.
  async function blockchain(name, args) {
    if (stringify(args).length > data.limits.hostArgumentChars) {
      throw new RangeError(`The arguments of blockchain.${name} exceed ${data.limits.hostArgumentChars} characters.`);
    }
    return unwrap(await callAsync(undefined, [`blockchain.${name}`, args], asyncOptions));
  }

  function formatError(error) {
    const stack = typeof error.stack === 'string' ? error.stack : `${error.name}: ${error.message}`;
    return stack
      .split('\n')
      .filter((line) => !line.includes('neoflow:'))
      .join('\n');
  }

  function format(value) {
    if (typeof value === 'string') return value;
    if (value instanceof Error) return formatError(value);
    if (typeof value === 'function') return `[Function: ${value.name || '(anonymous)'}]`;
    if (typeof value === 'bigint') return `${value}n`;
    if (typeof value !== 'object' || value === null) return String(value);
    try {
      return stringify(value, (_key, inner) => (typeof inner === 'bigint' ? `${inner}n` : inner)) ?? String(value);
    } catch {
      return Object.prototype.toString.call(value);
    }
  }

  // The host enforces the caps; stopping here too keeps a logging loop from flooding the host.
  function logger(level) {
    return (...args) => {
      if (logLines > data.limits.logLines) return;
      logLines += 1;
      sendLog(undefined, [level, args.map(format).join(' ').slice(0, data.limits.logLineChars)]);
    };
  }

  // Every read is reported (by name only) so the execution record can say which secrets it used.
  function readSecret(name) {
    callSync(undefined, ['secrets.read', [name]], syncOptions);
    return data.secrets[name];
  }

  function secretsObject() {
    const secrets = {};
    // A secret named `get` is read through secrets.get('get'): the method keeps the name.
    for (const name of Object.keys(data.secrets).filter((key) => key !== 'get')) {
      defineProperty(secrets, name, { enumerable: true, get: () => readSecret(name) });
    }
    defineProperty(secrets, 'get', {
      enumerable: false,
      value: async (name) => {
        if (typeof name === 'string' && hasOwn(data.secrets, name)) return readSecret(name);
        throw new Error(`Secret ${String(name)} is not granted to this function.`);
      },
    });
    return secrets;
  }

  const context = {
    params: data.params,
    execution: data.execution,
    environment: data.environment,
    secrets: secretsObject(),
    log: { debug: logger('debug'), info: logger('info'), warn: logger('warn'), error: logger('error') },
    services: {
      random: {
        bytes: (n) => random('bytes', [n]),
        int: (min, max) => random('int', [min, max]),
        uuid: () => random('uuid', []),
      },
      blockchain: {
        getBalance: (address, asset) => blockchain('getBalance', [address, asset]),
        getBlockCount: () => blockchain('getBlockCount', []),
        invokeRead: (scriptHash, operation, args) => blockchain('invokeRead', [scriptHash, operation, args]),
      },
    },
  };

  // Resizable and growable buffers and WebAssembly memory reserve and commit memory outside the
  // allocator the isolate's memory limit counts: a run could commit far beyond its limit. They are
  // not available. The guarded constructors replace the originals everywhere user code can reach
  // them (the global and the prototypes' `constructor`), and never pass the option on.
  delete globalThis.WebAssembly;
  function guardConstructor(name) {
    const Original = globalThis[name];
    const Guarded = function (length, options) {
      if (new.target === undefined) throw new TypeError(`Constructor ${name} requires 'new'`);
      const maxByteLength = options === undefined || options === null ? undefined : options.maxByteLength;
      if (maxByteLength !== undefined) {
        throw new TypeError(`Resizable ${name}s are not available in functions: their memory cannot be limited.`);
      }
      return Reflect.construct(Original, [length], new.target);
    };
    defineProperty(Guarded, 'name', { value: name });
    defineProperty(Guarded, 'prototype', { value: Original.prototype, writable: false });
    if (Original.isView)
      defineProperty(Guarded, 'isView', { value: Original.isView, writable: true, configurable: true });
    defineProperty(Original.prototype, 'constructor', { value: Guarded, writable: true, configurable: true });
    defineProperty(globalThis, name, { value: Guarded, writable: true, configurable: true });
  }
  guardConstructor('ArrayBuffer');
  guardConstructor('SharedArrayBuffer');

  // CommonJS forms assign to these; they are the user's own objects, nothing of the host.
  const commonJs = { exports: {} };
  globalThis.module = commonJs;
  globalThis.exports = commonJs.exports;

  function findEntry(namespace) {
    const exported = commonJs.exports;
    if (typeof exported === 'function') return exported;
    const candidates = [exported && exported.handler, globalThis.exports && globalThis.exports.handler];
    if (namespace) candidates.push(namespace.default);
    candidates.push(globalThis.main);
    return candidates.find((candidate) => typeof candidate === 'function');
  }

  // User code can make any of these throw (getters, toString, Symbol): each is read on its own.
  function text(read, limit) {
    try {
      const value = read();
      return typeof value === 'string' ? value.slice(0, limit) : undefined;
    } catch {
      return undefined;
    }
  }

  // Cut here so that the host copies a bounded error; the host masks, then cuts to the caps.
  function failure(error) {
    const { errorNameChars, errorMessageChars, errorStackChars } = data.limits;
    if (error instanceof Error) {
      const name = text(() => error.name, errorNameChars) ?? 'Error';
      const message = text(() => error.message, errorMessageChars) ?? '';
      return { ok: false, error: { name, message, stack: text(() => error.stack, errorStackChars) ?? '' } };
    }
    const message = text(() => String(error), errorMessageChars) ?? 'a value that cannot be printed';
    return { ok: false, error: { name: 'Error', message, stack: `Error: ${message}` } };
  }

  // Called by the host once the user's code has run; resolves to plain data only.
  return async function run(namespace) {
    const entry = findEntry(namespace);
    if (!entry) return { ok: false, error: { name: 'EntryPointError', message: data.entryHint, stack: '' } };
    let value;
    try {
      value = await entry(context);
    } catch (error) {
      return failure(error);
    }
    try {
      return { ok: true, json: stringify(value) };
    } catch (error) {
      const message = `The result is not JSON-serializable: ${error.message}`;
      return { ok: false, error: { name: 'ResultNotSerializableError', message, stack: '' } };
    }
  };
});
