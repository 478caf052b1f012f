// Runs inside the isolate, before the user's code. It turns plain data and two host references into
// the runtime context. The references stay in this closure: user code can reach neither, only the
// wrappers below, which copy arguments and results by value. `installGlobals` (globals.js, url.js)
// adds the standard globals, given the two host calls they need.
// eslint-disable-next-line @typescript-eslint/no-unused-expressions -- the host evaluates this expression.
(function bootstrap(hostCall, hostLog, data, installGlobals) {
  'use strict';
  // Captured now, so that user code replacing globals cannot change how results and logs leave.
  const { stringify, parse } = JSON;
  const { defineProperty, hasOwn, freeze, getPrototypeOf } = Object;
  const { isArray } = Array;
  // Indirect eval runs a script's top level as global code, as the host's Script.run would.
  const evaluateGlobal = globalThis.eval;
  const race = Promise.race.bind(Promise);
  const objectPrototype = Object.prototype;
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

  function namedError(name, message) {
    const error = new Error(message);
    error.name = name;
    return error;
  }

  // Only JSON data goes to the host: a Map, Set, buffer or regular expression would stringify to
  // a few characters while a structured clone of it carried everything it holds.
  function jsonData(_key, value) {
    if (value === null || typeof value !== 'object') {
      if (typeof value === 'bigint' || typeof value === 'function' || typeof value === 'symbol') {
        throw new TypeError(`a ${typeof value} is not JSON data`);
      }
      return value;
    }
    const prototype = getPrototypeOf(value);
    if (isArray(value) || prototype === objectPrototype || prototype === null) return value;
    throw new TypeError('only plain objects, arrays, strings, numbers, booleans and null can be sent');
  }

  // Arguments cross as the JSON text made and measured here, the one string the host receives.
  function encodeArguments(call, args) {
    let json;
    try {
      json = stringify(args, jsonData);
    } catch (error) {
      const reason = text(() => error.message, 200) ?? 'they are not JSON data';
      throw namedError('ServiceArgumentError', `The arguments of ${call} cannot be sent: ${reason}.`);
    }
    if (json.length > data.limits.hostArgumentChars) {
      throw namedError(
        'ServiceArgumentError',
        `The arguments of ${call} exceed ${data.limits.hostArgumentChars} characters as JSON.`,
      );
    }
    return json;
  }

  // The host answers JSON text too: parsed here, so that nothing of the host arrives but data.
  function unwrap(reply) {
    if (!reply.ok) throw namedError(reply.name ?? 'Error', reply.message);
    return reply.json === undefined ? undefined : parse(reply.json);
  }

  function random(name, args) {
    const call = `random.${name}`;
    return unwrap(callSync(undefined, [call, encodeArguments(call, args)], syncOptions));
  }

  async function blockchain(name, args) {
    const call = `blockchain.${name}`;
    return unwrap(await callAsync(undefined, [call, encodeArguments(call, args)], asyncOptions));
  }

  // The host bounded the answer and decoded its body; the body is read as text or JSON here.
  async function httpFetch(url, init) {
    const call = 'http.fetch';
    const args = encodeArguments(call, init === undefined ? [url] : [url, init]);
    const { status, headers, body } = unwrap(await callAsync(undefined, [call, args], asyncOptions));
    return {
      status,
      ok: status >= 200 && status < 300,
      headers,
      text: async () => body,
      json: async () => parse(body),
    };
  }

  async function storage(name, args) {
    const call = `storage.${name}`;
    return unwrap(await callAsync(undefined, [call, encodeArguments(call, args)], asyncOptions));
  }

  // JSON would turn an undefined value into null: refused instead, as delete says what it means.
  async function storageSet(key, value, options) {
    if (value === undefined) throw namedError('StorageValueError', 'storage.set needs a value; delete removes a key.');
    return storage('set', [key, value, options ?? {}]);
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
    callSync(undefined, ['secrets.read', stringify([name])], syncOptions);
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
      http: { fetch: httpFetch },
    },
    storage: {
      get: (key) => storage('get', [key]),
      getEntry: (key) => storage('getEntry', [key]),
      set: storageSet,
      delete: (key, options) => storage('delete', [key, options ?? {}]),
      list: (options) => storage('list', [options ?? {}]),
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

  // A timer is a wait on the host, uncounted (globals.js bounds how many); randomness is the
  // counted random.bytes call.
  const { timerFailure } = installGlobals(
    freeze({
      __proto__: null,
      wait: async (ms) => unwrap(await callAsync(undefined, ['timers.wait', stringify([ms])], asyncOptions)),
      randomHex: (n) => random('bytes', [n]),
    }),
    data.globals,
  );
  // The first error a timer's callback throws fails the run, as it would end a Node process.
  const timerThrew = timerFailure.then((error) => {
    throw error;
  });

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

  // The result crosses as JSON text, measured here: a result over its cap never reaches the host.
  function result(value) {
    let json;
    try {
      json = stringify(value);
    } catch (error) {
      const reason = text(() => error.message, data.limits.errorMessageChars) ?? 'a value that cannot be printed';
      const message = `The result is not JSON-serializable: ${reason}`;
      return { ok: false, error: { name: 'ResultNotSerializableError', message, stack: '' } };
    }
    if (json !== undefined && json.length > data.limits.resultChars) {
      const mebibytes = (json.length / (1024 * 1024)).toFixed(2);
      const message = `The result is at least ${mebibytes} MiB as JSON; the limit is 1 MiB.`;
      return { ok: false, error: { name: 'ResultTooLargeError', message, stack: '' } };
    }
    return { ok: true, json };
  }

  // A script's top level runs here rather than from the host: what it throws, and the value it
  // completes with, stay in the isolate (the host would copy either whole before any cap applied).
  function evaluateScript() {
    try {
      evaluateGlobal(`${data.script.code}\n//# sourceURL=${data.script.filename}`);
      return undefined;
    } catch (error) {
      return failure(error);
    }
  }

  async function settle(namespace) {
    const failed = data.script === undefined ? undefined : evaluateScript();
    if (failed) return failed;
    const entry = findEntry(namespace);
    if (!entry) return { ok: false, error: { name: 'EntryPointError', message: data.entryHint, stack: '' } };
    let value;
    try {
      value = await race([entry(context), timerThrew]);
    } catch (error) {
      return failure(error);
    }
    return result(value);
  }

  // Called by the host once the user's code has run; resolves to plain data only. It never
  // rejects: a rejection would carry whatever user code threw (a proxy's trap, a getter) whole.
  return async function run(namespace) {
    try {
      const reply = await settle(namespace);
      // Log lines go as ignored calls, queued on the host: after an awaited service call the run's
      // end could overtake the last ones. A synchronous call returns once they have run.
      callSync(undefined, ['log.flush', '[]'], syncOptions);
      return reply;
    } catch {
      return { ok: false, error: { name: 'Error', message: 'a value that cannot be printed', stack: '' } };
    }
  };
});
