// Runs inside the isolate: the standard globals a function may use (setTimeout, TextEncoder, URL,
// atob, structuredClone, crypto), written in plain JavaScript over the isolate's own objects. Only
// `host.wait` (time passing) and `host.randomHex` (randomness) reach the host, through the
// bootstrap's copying bridge; nothing of the host is kept here or handed to user code.
// eslint-disable-next-line @typescript-eslint/no-unused-expressions -- the host evaluates this expression.
(function installGlobals(host, limits) {
  'use strict';
  const { defineProperty, freeze, keys, getPrototypeOf } = Object;
  const { fromCharCode } = String;
  const { isView } = ArrayBuffer;
  const bufferByteLength = Object.getOwnPropertyDescriptor(ArrayBuffer.prototype, 'byteLength').get;
  const typedArrayTag = Object.getOwnPropertyDescriptor(getPrototypeOf(Uint8Array.prototype), Symbol.toStringTag).get;

  function namedError(name, message, Base = Error) {
    const error = new Base(message);
    error.name = name;
    return error;
  }

  // Inputs are bounded before anything is allocated for them: an answer several times its input's
  // size must fit the isolate's memory limit (which also bounds every allocation made here).
  function bounded(text, what) {
    if (text.length > limits.maxInputChars) {
      throw new RangeError(`${what} takes at most ${limits.maxInputChars} characters in a function.`);
    }
    return text;
  }

  // Strings are built from code units in chunks: one call per unit is slow, one call for all overflows.
  function fromCodeUnits(units, length = units.length) {
    let text = '';
    for (let start = 0; start < length; start += 8192) {
      text += fromCharCode.apply(undefined, units.slice(start, Math.min(start + 8192, length)));
    }
    return text;
  }

  // ---- setTimeout / clearTimeout: each timer is one bounded wait on the host, dropped with the run.
  const pendingTimers = new Set();
  let timersSet = 0;
  let nextTimerId = 1;
  let reportTimerFailure;
  // Resolves with the first error a timer's callback throws: the run fails with it.
  const timerFailure = new Promise((resolve) => {
    reportTimerFailure = resolve;
  });

  function setTimeout(callback, delay = 0, ...args) {
    if (typeof callback !== 'function') {
      throw new TypeError('setTimeout(callback, delay) needs a function: strings are not evaluated.');
    }
    if (pendingTimers.size >= limits.pendingTimers) {
      throw namedError('TimerLimitError', `A function may have at most ${limits.pendingTimers} timers pending.`);
    }
    if (timersSet >= limits.timersPerRun) {
      throw namedError('TimerLimitError', `A run may set at most ${limits.timersPerRun} timers.`);
    }
    timersSet += 1;
    const id = nextTimerId++;
    pendingTimers.add(id);
    const ms = Number(delay);
    // Past the run's timeout a timer can never fire: the run ends first.
    const wait = ms > 0 ? Math.min(ms, limits.maxDelayMs) : 0;
    host.wait(wait).then(
      () => {
        if (!pendingTimers.delete(id)) return;
        try {
          callback(...args);
        } catch (error) {
          reportTimerFailure(error);
        }
      },
      () => pendingTimers.delete(id),
    );
    return id;
  }

  function clearTimeout(id) {
    pendingTimers.delete(id);
  }

  // ---- crypto: randomness drawn from the host (a counted service call) 4 KiB at a time.
  const poolBytes = 4096;
  let pool = new Uint8Array(0);
  let poolOffset = 0;

  function fromHex(hex) {
    const bytes = new Uint8Array(hex.length / 2);
    for (let i = 0; i < bytes.length; i++) bytes[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
    return bytes;
  }

  function randomBytes(n) {
    if (n > poolBytes) return fromHex(host.randomHex(n));
    if (pool.length - poolOffset < n) {
      pool = fromHex(host.randomHex(poolBytes));
      poolOffset = 0;
    }
    const drawn = pool.slice(poolOffset, poolOffset + n);
    pool.fill(0, poolOffset, poolOffset + n);
    poolOffset += n;
    return drawn;
  }

  const integerArrays = new Set([
    'Int8Array',
    'Uint8Array',
    'Uint8ClampedArray',
    'Int16Array',
    'Uint16Array',
    'Int32Array',
    'Uint32Array',
    'BigInt64Array',
    'BigUint64Array',
  ]);

  function getRandomValues(array) {
    const tag = isView(array) ? typedArrayTag.call(array) : undefined;
    if (!integerArrays.has(tag)) {
      throw namedError('TypeMismatchError', 'crypto.getRandomValues() needs an integer typed array.', TypeError);
    }
    if (array.byteLength > 65536) {
      throw namedError('QuotaExceededError', 'crypto.getRandomValues() fills at most 65536 bytes at once.');
    }
    new Uint8Array(array.buffer, array.byteOffset, array.byteLength).set(randomBytes(array.byteLength));
    return array;
  }

  function randomUUID() {
    const bytes = randomBytes(16);
    bytes[6] = (bytes[6] & 0x0f) | 0x40;
    bytes[8] = (bytes[8] & 0x3f) | 0x80;
    const hex = [...bytes].map((byte) => byte.toString(16).padStart(2, '0')).join('');
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  }

  // ---- UTF-8, as TextEncoder and TextDecoder (and URL's percent-encoding) use it.
  function utf8Length(text) {
    let length = 0;
    for (let i = 0; i < text.length; i++) {
      const unit = text.charCodeAt(i);
      if (unit < 0x80) length += 1;
      else if (unit < 0x800) length += 2;
      else if (unit >= 0xd800 && unit <= 0xdbff && isLowSurrogate(text.charCodeAt(i + 1))) {
        length += 4;
        i += 1;
      } else length += 3;
    }
    return length;
  }

  function isLowSurrogate(unit) {
    return unit >= 0xdc00 && unit <= 0xdfff;
  }

  // Writes whole characters only; a lone surrogate is written as U+FFFD.
  function encodeUtf8Into(text, bytes) {
    let read = 0;
    let written = 0;
    while (read < text.length) {
      let point = text.charCodeAt(read);
      let units = 1;
      if (point >= 0xd800 && point <= 0xdfff) {
        const next = text.charCodeAt(read + 1);
        if (point <= 0xdbff && isLowSurrogate(next)) {
          point = 0x10000 + ((point - 0xd800) << 10) + (next - 0xdc00);
          units = 2;
        } else point = 0xfffd;
      }
      const size = point < 0x80 ? 1 : point < 0x800 ? 2 : point < 0x10000 ? 3 : 4;
      if (written + size > bytes.length) break;
      if (size === 1) bytes[written] = point;
      else if (size === 2) {
        bytes[written] = 0xc0 | (point >> 6);
        bytes[written + 1] = 0x80 | (point & 0x3f);
      } else if (size === 3) {
        bytes[written] = 0xe0 | (point >> 12);
        bytes[written + 1] = 0x80 | ((point >> 6) & 0x3f);
        bytes[written + 2] = 0x80 | (point & 0x3f);
      } else {
        bytes[written] = 0xf0 | (point >> 18);
        bytes[written + 1] = 0x80 | ((point >> 12) & 0x3f);
        bytes[written + 2] = 0x80 | ((point >> 6) & 0x3f);
        bytes[written + 3] = 0x80 | (point & 0x3f);
      }
      written += size;
      read += units;
    }
    return { read, written };
  }

  function encodeUtf8(text) {
    const bytes = new Uint8Array(utf8Length(text));
    encodeUtf8Into(text, bytes);
    return bytes;
  }

  // The WHATWG UTF-8 decoder: each maximal invalid subpart becomes one U+FFFD (or an error when
  // fatal); `state` carries an unfinished sequence from one streamed chunk to the next.
  function decodeUtf8(bytes, state, fatal, flush) {
    const units = [];
    const invalid = () => {
      if (fatal) throw new TypeError('The encoded data is not valid UTF-8.');
      units.push(0xfffd);
    };
    for (let i = 0; i < bytes.length; i++) {
      const byte = bytes[i];
      if (state.needed === 0) {
        if (byte < 0x80) units.push(byte);
        else if (byte >= 0xc2 && byte <= 0xdf) {
          state.needed = 1;
          state.point = byte & 0x1f;
        } else if (byte >= 0xe0 && byte <= 0xef) {
          if (byte === 0xe0) state.lower = 0xa0;
          if (byte === 0xed) state.upper = 0x9f;
          state.needed = 2;
          state.point = byte & 0xf;
        } else if (byte >= 0xf0 && byte <= 0xf4) {
          if (byte === 0xf0) state.lower = 0x90;
          if (byte === 0xf4) state.upper = 0x8f;
          state.needed = 3;
          state.point = byte & 0x7;
        } else invalid();
        continue;
      }
      if (byte < state.lower || byte > state.upper) {
        Object.assign(state, { needed: 0, seen: 0, point: 0, lower: 0x80, upper: 0xbf });
        invalid();
        i -= 1;
        continue;
      }
      state.lower = 0x80;
      state.upper = 0xbf;
      state.point = (state.point << 6) | (byte & 0x3f);
      state.seen += 1;
      if (state.seen !== state.needed) continue;
      const point = state.point;
      Object.assign(state, { needed: 0, seen: 0, point: 0 });
      if (point < 0x10000) units.push(point);
      else units.push(0xd800 + ((point - 0x10000) >> 10), 0xdc00 + ((point - 0x10000) & 0x3ff));
    }
    if (flush && state.needed !== 0) {
      Object.assign(state, { needed: 0, seen: 0, point: 0, lower: 0x80, upper: 0xbf });
      invalid();
    }
    return fromCodeUnits(units);
  }

  function freshUtf8State() {
    return { needed: 0, seen: 0, point: 0, lower: 0x80, upper: 0xbf };
  }

  function bytesOf(input) {
    if (input === undefined) return new Uint8Array(0);
    if (isView(input)) return new Uint8Array(input.buffer, input.byteOffset, input.byteLength);
    try {
      bufferByteLength.call(input);
    } catch {
      throw new TypeError('decode() takes an ArrayBuffer or an ArrayBuffer view.');
    }
    return new Uint8Array(input);
  }

  class TextEncoder {
    get encoding() {
      return 'utf-8';
    }

    encode(input = '') {
      return encodeUtf8(bounded(String(input), 'TextEncoder.encode()'));
    }

    encodeInto(source, destination) {
      if (!(destination instanceof Uint8Array)) throw new TypeError('encodeInto() writes into a Uint8Array.');
      return encodeUtf8Into(bounded(String(source), 'TextEncoder.encodeInto()'), destination);
    }
  }

  const utf8Labels = new Set([
    'utf-8',
    'utf8',
    'unicode-1-1-utf-8',
    'unicode11utf8',
    'unicode20utf8',
    'x-unicode20utf8',
  ]);

  class TextDecoder {
    #fatal;
    #ignoreBOM;
    #state = freshUtf8State();
    #started = false;

    constructor(label = 'utf-8', options = {}) {
      const name = String(label).trim().toLowerCase();
      if (!utf8Labels.has(name))
        throw new RangeError(`The "${name}" encoding is not supported: functions decode UTF-8.`);
      this.#fatal = Boolean(options && options.fatal);
      this.#ignoreBOM = Boolean(options && options.ignoreBOM);
    }

    get encoding() {
      return 'utf-8';
    }

    get fatal() {
      return this.#fatal;
    }

    get ignoreBOM() {
      return this.#ignoreBOM;
    }

    decode(input, options = {}) {
      const stream = Boolean(options && options.stream);
      let bytes = bytesOf(input);
      if (bytes.length > limits.maxInputChars) {
        throw new RangeError(`TextDecoder.decode() takes at most ${limits.maxInputChars} bytes in a function.`);
      }
      if (!this.#started && !this.#ignoreBOM && this.#state.needed === 0) {
        if (bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) bytes = bytes.subarray(3);
      }
      this.#started = bytes.length > 0 || this.#started;
      try {
        return decodeUtf8(bytes, this.#state, this.#fatal, !stream);
      } finally {
        if (!stream) {
          this.#state = freshUtf8State();
          this.#started = false;
        }
      }
    }
  }

  // ---- atob / btoa: base64 of binary strings (one character per byte).
  const base64Alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  const base64Values = new Map([...base64Alphabet].map((character, index) => [character, index]));

  function btoa(data) {
    const text = bounded(String(data), 'btoa()');
    const out = [];
    for (let i = 0; i < text.length; i += 3) {
      const chunk = [text.charCodeAt(i), text.charCodeAt(i + 1), text.charCodeAt(i + 2)];
      const present = Math.min(3, text.length - i);
      for (let j = 0; j < present; j++) {
        if (chunk[j] > 0xff) throw namedError('InvalidCharacterError', 'btoa() takes characters of one byte only.');
      }
      const bits = (chunk[0] << 16) | ((present > 1 ? chunk[1] : 0) << 8) | (present > 2 ? chunk[2] : 0);
      out.push(base64Alphabet[bits >> 18], base64Alphabet[(bits >> 12) & 63]);
      out.push(present > 1 ? base64Alphabet[(bits >> 6) & 63] : '=', present > 2 ? base64Alphabet[bits & 63] : '=');
    }
    return out.join('');
  }

  function atob(data) {
    let text = bounded(String(data), 'atob()').replace(/[\t\n\f\r ]/g, '');
    if (text.length % 4 === 0) text = text.replace(/={1,2}$/, '');
    if (text.length % 4 === 1 || /[^A-Za-z0-9+/]/.test(text)) {
      throw namedError('InvalidCharacterError', 'atob() was given a string that is not valid base64.');
    }
    const units = [];
    let bits = 0;
    let count = 0;
    for (const character of text) {
      bits = (bits << 6) | base64Values.get(character);
      count += 6;
      if (count >= 8) {
        count -= 8;
        units.push((bits >> count) & 0xff);
      }
    }
    return fromCodeUnits(units);
  }

  // ---- structuredClone: the structured clone of the values an isolate can hold.
  const errorTypes = { Error, EvalError, RangeError, ReferenceError, SyntaxError, TypeError, URIError };
  const { Map: OriginalMap, Set: OriginalSet, Date: OriginalDate, RegExp: OriginalRegExp } = globalThis;
  const { Boolean: BooleanType, Number: NumberType, String: StringType, BigInt: BigIntType } = globalThis;
  const typedArrays = {
    Int8Array,
    Uint8Array,
    Uint8ClampedArray,
    Int16Array,
    Uint16Array,
    Int32Array,
    Uint32Array,
    Float32Array,
    Float64Array,
    BigInt64Array,
    BigUint64Array,
  };

  function structuredClone(value, options) {
    if (options && options.transfer && options.transfer.length > 0) {
      throw namedError('DataCloneError', 'structuredClone() cannot transfer in a function.');
    }
    const seen = new OriginalMap();
    const cannot = (what) => namedError('DataCloneError', `${what} could not be cloned.`);
    const copyFields = (from, to) => {
      for (const key of keys(from)) to[key] = clone(from[key]);
      return to;
    };
    const remember = (from, to) => {
      seen.set(from, to);
      return to;
    };
    function clone(input) {
      if (typeof input === 'function') throw cannot(`The function ${input.name || '(anonymous)'}`);
      if (typeof input === 'symbol') throw cannot('A symbol');
      if (input === null || typeof input !== 'object') return input;
      if (seen.has(input)) return seen.get(input);
      if (Array.isArray(input)) return copyFields(input, remember(input, new Array(input.length)));
      if (input instanceof OriginalDate) return remember(input, new OriginalDate(input.getTime()));
      if (input instanceof OriginalRegExp) return remember(input, new OriginalRegExp(input.source, input.flags));
      if (input instanceof BooleanType || input instanceof NumberType || input instanceof StringType) {
        return remember(input, Object(input.valueOf()));
      }
      if (input instanceof BigIntType) return remember(input, Object(input.valueOf()));
      if (input instanceof OriginalMap) {
        const copy = remember(input, new OriginalMap());
        for (const [key, entry] of input) copy.set(clone(key), clone(entry));
        return copy;
      }
      if (input instanceof OriginalSet) {
        const copy = remember(input, new OriginalSet());
        for (const entry of input) copy.add(clone(entry));
        return copy;
      }
      if (input instanceof ArrayBuffer) return remember(input, input.slice(0));
      if (input instanceof DataView) {
        return remember(input, new DataView(clone(input.buffer), input.byteOffset, input.byteLength));
      }
      if (isView(input)) {
        const Type = typedArrays[typedArrayTag.call(input)];
        return remember(input, new Type(clone(input.buffer), input.byteOffset, input.length));
      }
      if (input instanceof Error) {
        const Type = errorTypes[input.name] ?? Error;
        const copy = remember(input, new Type(String(input.message)));
        if (typeof input.stack === 'string')
          defineProperty(copy, 'stack', { value: input.stack, writable: true, configurable: true });
        if (Object.hasOwn(input, 'cause')) copy.cause = clone(input.cause);
        return copy;
      }
      const prototype = getPrototypeOf(input);
      if (prototype !== Object.prototype && prototype !== null && !isPlainClassInstance(input)) {
        throw cannot(`An object of type ${Object.prototype.toString.call(input).slice(8, -1)}`);
      }
      return copyFields(input, remember(input, {}));
    }
    return clone(value);
  }

  // Host-like objects (a Promise, a WeakMap, a Proxy's target aside) cannot be cloned; an instance
  // of the user's own class clones as a plain object of its own fields, as in browsers and Node.
  const unclonable = [Promise, WeakMap, WeakSet, WeakRef];
  function isPlainClassInstance(input) {
    return !unclonable.some((Type) => input instanceof Type);
  }

  const installed = {
    setTimeout,
    clearTimeout,
    TextEncoder,
    TextDecoder,
    atob,
    btoa,
    structuredClone,
    crypto: freeze({ getRandomValues, randomUUID }),
  };
  for (const [name, value] of Object.entries(installed)) {
    defineProperty(globalThis, name, { value, writable: true, configurable: true, enumerable: false });
  }
  return { timerFailure, encodeUtf8, decodeUtf8: (bytes) => decodeUtf8(bytes, freshUtf8State(), false, true) };
});
