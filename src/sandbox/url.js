// Runs inside the isolate: URL and URLSearchParams after the WHATWG URL standard, in plain
// JavaScript. It parses and builds text only; nothing here reaches the network or the host.
// Covered: special and opaque schemes, credentials, IPv4 (all its numeric forms), IPv6, domains
// (lower-cased; non-ASCII labels as Punycode, without the full UTS #46 mapping), dot segments,
// relative references, percent-encoding sets, and the linked searchParams.
/* eslint-disable no-control-regex -- the standard names C0 control characters: they are matched here. */
// eslint-disable-next-line @typescript-eslint/no-unused-expressions -- the host evaluates this expression.
(function installUrl(shared) {
  'use strict';
  const { encodeUtf8, decodeUtf8 } = shared;
  const { defineProperty } = Object;

  const specialPorts = { 'ftp:': 21, 'file:': null, 'http:': 80, 'https:': 443, 'ws:': 80, 'wss:': 443 };
  const isSpecial = (scheme) => Object.hasOwn(specialPorts, `${scheme}:`);
  const defaultPort = (scheme) => specialPorts[`${scheme}:`];

  // Percent-encode sets, each a test of one ASCII code point (non-ASCII is always encoded).
  const c0Control = (c) => c < 0x20 || c > 0x7e;
  const fragmentSet = (c) => c0Control(c) || ' "<>`'.includes(String.fromCharCode(c));
  const querySet = (c) => c0Control(c) || ' "#<>'.includes(String.fromCharCode(c));
  const specialQuerySet = (c) => querySet(c) || c === 0x27;
  const pathSet = (c) => querySet(c) || '?^`{}'.includes(String.fromCharCode(c));
  const userinfoSet = (c) => pathSet(c) || '/:;=@[\\]|'.includes(String.fromCharCode(c));
  const formSet = (c) => userinfoSet(c) || "$%&+,!'()~".includes(String.fromCharCode(c));

  function percentEncode(text, inSet, spaceAsPlus = false) {
    let out = '';
    for (const character of text) {
      const code = character.codePointAt(0);
      if (spaceAsPlus && code === 0x20) out += '+';
      else if (code < 0x80 && !inSet(code)) out += character;
      else for (const byte of encodeUtf8(character)) out += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
    }
    return out;
  }

  function percentDecodeBytes(text) {
    const bytes = encodeUtf8(text);
    const out = new Uint8Array(bytes.length);
    let length = 0;
    for (let i = 0; i < bytes.length; i++) {
      const hex = String.fromCharCode(bytes[i + 1] ?? 0, bytes[i + 2] ?? 0);
      if (bytes[i] === 0x25 && /^[0-9A-Fa-f]{2}$/.test(hex)) {
        out[length++] = parseInt(hex, 16);
        i += 2;
      } else out[length++] = bytes[i];
    }
    return out.subarray(0, length);
  }

  const percentDecode = (text) => decodeUtf8(percentDecodeBytes(text));

  // ---- hosts
  function parseIPv4Number(part) {
    if (part === '') return NaN;
    if (/^0[xX]/.test(part)) return /^0[xX][0-9A-Fa-f]*$/.test(part) ? parseInt(part.slice(2) || '0', 16) : NaN;
    if (/^0[0-7]+$/.test(part)) return parseInt(part, 8);
    return /^\d+$/.test(part) ? Number(part) : NaN;
  }

  function endsInNumber(host) {
    const parts = host.split('.');
    if (parts.at(-1) === '' && parts.length > 1) parts.pop();
    const last = parts.at(-1);
    return /^\d+$/.test(last) || /^0[xX][0-9A-Fa-f]*$/.test(last);
  }

  function parseIPv4(host) {
    const parts = host.split('.');
    if (parts.at(-1) === '' && parts.length > 1) parts.pop();
    if (parts.length > 4) return null;
    const numbers = parts.map(parseIPv4Number);
    if (numbers.some((n) => Number.isNaN(n))) return null;
    if (numbers.slice(0, -1).some((n) => n > 255)) return null;
    if (numbers.at(-1) >= 256 ** (5 - numbers.length)) return null;
    let address = numbers.at(-1);
    numbers.slice(0, -1).forEach((n, i) => (address += n * 256 ** (3 - i)));
    return [24, 16, 8, 0].map((shift) => Math.floor(address / 2 ** shift) % 256).join('.');
  }

  // The standard's algorithm, step by step: pieces, one `::` compression, an IPv4 tail.
  function parseIPv6(text) {
    const pieces = [0, 0, 0, 0, 0, 0, 0, 0];
    let index = 0;
    let compress = null;
    let i = 0;
    if (text[0] === ':') {
      if (text[1] !== ':') return null;
      i = 2;
      index = 1;
      compress = 1;
    }
    while (i < text.length) {
      if (index === 8) return null;
      if (text[i] === ':') {
        if (compress !== null) return null;
        i += 1;
        index += 1;
        compress = index;
        continue;
      }
      const hex = /^[0-9A-Fa-f]{0,4}/.exec(text.slice(i))[0];
      if (text[i + hex.length] === '.') {
        if (hex.length === 0 || index > 6) return null;
        const v4 = text.slice(i).split('.');
        if (v4.length !== 4 || v4.some((part) => !/^(0|[1-9]\d{0,2})$/.test(part) || Number(part) > 255)) return null;
        pieces[index++] = Number(v4[0]) * 256 + Number(v4[1]);
        pieces[index++] = Number(v4[2]) * 256 + Number(v4[3]);
        break;
      }
      i += hex.length;
      if (text[i] === ':') {
        i += 1;
        if (i === text.length) return null;
      } else if (i < text.length) return null;
      pieces[index++] = parseInt(hex || '0', 16);
    }
    if (compress !== null) {
      let swaps = index - compress;
      index = 7;
      while (index !== 0 && swaps > 0) {
        const swapped = pieces[compress + swaps - 1];
        pieces[compress + swaps - 1] = pieces[index];
        pieces[index] = swapped;
        index -= 1;
        swaps -= 1;
      }
    } else if (index !== 8) return null;
    return pieces;
  }

  function serializeIPv6(pieces) {
    let best = -1;
    let bestLength = 1;
    for (let i = 0; i < 8; i++) {
      let j = i;
      while (j < 8 && pieces[j] === 0) j++;
      if (j - i > bestLength) {
        best = i;
        bestLength = j - i;
      }
    }
    let out = '';
    for (let i = 0; i < 8; i++) {
      if (i === best) {
        out += i === 0 ? '::' : ':';
        i += bestLength - 1;
        continue;
      }
      out += pieces[i].toString(16) + (i < 7 ? ':' : '');
    }
    return `[${out}]`;
  }

  function punycode(label) {
    const points = [...label].map((character) => character.codePointAt(0));
    let output = points
      .filter((p) => p < 0x80)
      .map((p) => String.fromCharCode(p))
      .join('');
    const basic = output.length;
    let handled = basic;
    if (basic > 0) output += '-';
    const digit = (d) => String.fromCharCode(d + (d < 26 ? 97 : 22));
    let n = 128;
    let delta = 0;
    let bias = 72;
    while (handled < points.length) {
      const next = Math.min(...points.filter((p) => p >= n));
      delta += (next - n) * (handled + 1);
      n = next;
      for (const point of points) {
        if (point < n) delta += 1;
        if (point !== n) continue;
        let q = delta;
        for (let k = 36; ; k += 36) {
          const t = k <= bias ? 1 : k >= bias + 26 ? 26 : k - bias;
          if (q < t) break;
          output += digit(t + ((q - t) % (36 - t)));
          q = Math.floor((q - t) / (36 - t));
        }
        output += digit(q);
        let scaled = handled === basic ? Math.floor(delta / 700) : delta >> 1;
        scaled += Math.floor(scaled / (handled + 1));
        let k = 0;
        while (scaled > 455) {
          scaled = Math.floor(scaled / 35);
          k += 36;
        }
        bias = k + Math.floor((36 * scaled) / (scaled + 38));
        delta = 0;
        handled += 1;
      }
      delta += 1;
      n += 1;
    }
    return `xn--${output}`;
  }

  const forbiddenHost = /[\u0000\t\n\r #/:<>?@[\\\]^|]/;
  const forbiddenDomain = /[\u0000-\u001f #%/:<>?@[\\\]^|\u007f]/;

  function parseHost(input, special) {
    if (input.startsWith('[')) {
      if (!input.endsWith(']')) return null;
      const pieces = parseIPv6(input.slice(1, -1));
      return pieces && serializeIPv6(pieces);
    }
    if (!special) return forbiddenHost.test(input) ? null : percentEncode(input, c0Control);
    const domain = percentDecode(input).normalize('NFC').toLowerCase();
    if (domain === '' || forbiddenDomain.test(domain)) return null;
    const ascii = domain
      .split('.')
      .map((label) => (/^[\u0000-\u007f]*$/.test(label) ? label : punycode(label)))
      .join('.');
    if (endsInNumber(ascii)) return parseIPv4(ascii);
    return ascii;
  }

  // ---- the parser: a URL record from a string and an optional base record.
  function invalid() {
    return null;
  }

  function parsePath(text, special, basePath) {
    const segments = basePath ? basePath.slice(0, -1) : [];
    const parts = text.split(special ? /[/\\]/ : '/');
    parts.forEach((part, index) => {
      const last = index === parts.length - 1;
      const lower = part.toLowerCase();
      if (lower === '..' || lower === '.%2e' || lower === '%2e.' || lower === '%2e%2e') {
        segments.pop();
        if (last) segments.push('');
      } else if (lower === '.' || lower === '%2e') {
        if (last) segments.push('');
      } else segments.push(percentEncode(part, pathSet));
    });
    return segments;
  }

  function splitTail(text, special) {
    const hashAt = text.indexOf('#');
    const fragment = hashAt < 0 ? null : percentEncode(text.slice(hashAt + 1), fragmentSet);
    const beforeHash = hashAt < 0 ? text : text.slice(0, hashAt);
    const queryAt = beforeHash.indexOf('?');
    const query =
      queryAt < 0 ? null : percentEncode(beforeHash.slice(queryAt + 1), special ? specialQuerySet : querySet);
    return { rest: queryAt < 0 ? beforeHash : beforeHash.slice(0, queryAt), query, fragment };
  }

  function parseAuthority(record, text) {
    const special = isSpecial(record.scheme);
    const end = text.search(special ? /[/\\?#]/ : /[/?#]/);
    const authority = end < 0 ? text : text.slice(0, end);
    const at = authority.lastIndexOf('@');
    if (at >= 0) {
      const userinfo = authority.slice(0, at);
      const colon = userinfo.indexOf(':');
      record.username = percentEncode(colon < 0 ? userinfo : userinfo.slice(0, colon), userinfoSet);
      record.password = colon < 0 ? '' : percentEncode(userinfo.slice(colon + 1), userinfoSet);
    }
    const hostPort = authority.slice(at + 1);
    const portMatch = /:(\d*)$/.exec(hostPort.startsWith('[') ? hostPort.slice(hostPort.indexOf(']')) : hostPort);
    const hostText = portMatch ? hostPort.slice(0, hostPort.length - portMatch[0].length) : hostPort;
    if (!portMatch && /:/.test(hostPort.startsWith('[') ? hostPort.slice(hostPort.indexOf(']')) : hostPort)) {
      return null;
    }
    if (hostText === '' && special && record.scheme !== 'file') return null;
    if (hostText === '' && (at >= 0 || portMatch)) return null;
    const host = hostText === '' ? '' : parseHost(hostText, special);
    if (host === null) return null;
    record.host = record.scheme === 'file' && host === 'localhost' ? '' : host;
    record.port = null;
    if (portMatch && portMatch[1] !== '') {
      const port = Number(portMatch[1]);
      if (port > 65535) return null;
      record.port = port === defaultPort(record.scheme) ? null : port;
    }
    return end < 0 ? '' : text.slice(end);
  }

  function emptyRecord(scheme) {
    return { scheme, username: '', password: '', host: null, port: null, path: [], query: null, fragment: null };
  }

  function parseUrl(input, base) {
    const text = input.replace(/^[\u0000-\u0020]+|[\u0000-\u0020]+$/g, '').replace(/[\t\n\r]/g, '');
    const schemeMatch = /^([A-Za-z][A-Za-z0-9+\-.]*):/.exec(text);
    if (schemeMatch) {
      const scheme = schemeMatch[1].toLowerCase();
      const after = text.slice(schemeMatch[0].length);
      const special = isSpecial(scheme);
      if (special && base && base.scheme === scheme && !/^[/\\]/.test(after)) return parseRelative(after, base);
      const record = emptyRecord(scheme);
      const { rest, query, fragment } = splitTail(after, special);
      record.query = query;
      record.fragment = fragment;
      if (special) {
        const withoutSlashes = rest.replace(/^[/\\]*/, '');
        if (scheme === 'file' && !/^[/\\]{2}/.test(rest)) {
          record.host = '';
          record.path = parsePath(rest.replace(/^[/\\]/, ''), true);
          return record;
        }
        const path = parseAuthority(record, scheme === 'file' ? rest.slice(2) : withoutSlashes);
        if (path === null) return invalid();
        record.path = parsePath(path.replace(/^[/\\]/, ''), true);
        return record;
      }
      if (rest.startsWith('//')) {
        const path = parseAuthority(record, rest.slice(2));
        if (path === null) return invalid();
        record.path = path === '' ? [] : parsePath(path.slice(1), false);
        return record;
      }
      if (rest.startsWith('/')) {
        record.path = parsePath(rest.slice(1), false);
        return record;
      }
      record.path = percentEncode(rest, c0Control);
      return record;
    }
    if (!base) return invalid();
    if (typeof base.path === 'string') {
      if (!text.startsWith('#')) return invalid();
      return { ...base, fragment: percentEncode(text.slice(1), fragmentSet) };
    }
    return parseRelative(text, base);
  }

  function parseRelative(text, base) {
    const special = isSpecial(base.scheme);
    const slash = special ? /^[/\\]/ : /^\//;
    const record = { ...base, path: [...base.path] };
    if (special ? /^[/\\]{2}/.test(text) : text.startsWith('//')) {
      const fresh = emptyRecord(base.scheme);
      const { rest, query, fragment } = splitTail(text.slice(2), special);
      const path = parseAuthority(fresh, rest);
      if (path === null) return invalid();
      fresh.path = parsePath(path.replace(slash, ''), special);
      if (path === '' && !special) fresh.path = [];
      return { ...fresh, query, fragment };
    }
    const { rest, query, fragment } = splitTail(text, special);
    record.fragment = fragment;
    if (rest === '') {
      if (query !== null || text.startsWith('?')) record.query = query;
      return record;
    }
    record.query = query;
    record.path = slash.test(rest) ? parsePath(rest.slice(1), special) : parsePath(rest, special, base.path);
    return record;
  }

  function serializePath(record) {
    if (typeof record.path === 'string') return record.path;
    const path = record.path.map((segment) => `/${segment}`).join('');
    return record.host === null && record.path.length > 1 && record.path[0] === '' ? `/.${path}` : path;
  }

  function serializeHost(record) {
    return record.host + (record.port === null ? '' : `:${record.port}`);
  }

  function serialize(record, withoutFragment = false) {
    let out = `${record.scheme}:`;
    if (record.host !== null) {
      out += '//';
      if (record.username !== '' || record.password !== '') {
        out += record.username + (record.password === '' ? '' : `:${record.password}`) + '@';
      }
      out += serializeHost(record);
    }
    out += serializePath(record);
    if (record.query !== null) out += `?${record.query}`;
    if (!withoutFragment && record.fragment !== null) out += `#${record.fragment}`;
    return out;
  }

  // ---- application/x-www-form-urlencoded
  function parseForm(text) {
    return text
      .split('&')
      .filter((pair) => pair !== '')
      .map((pair) => {
        const at = pair.indexOf('=');
        const name = at < 0 ? pair : pair.slice(0, at);
        const value = at < 0 ? '' : pair.slice(at + 1);
        return [percentDecode(name.replaceAll('+', ' ')), percentDecode(value.replaceAll('+', ' '))];
      });
  }

  function serializeForm(list) {
    return list
      .map(([name, value]) => `${percentEncode(name, formSet, true)}=${percentEncode(value, formSet, true)}`)
      .join('&');
  }

  function toUSVString(value) {
    return String(value).toWellFormed();
  }

  let replaceList;
  let linkToUrl;

  class URLSearchParams {
    #list = [];
    #changed = null;

    static {
      replaceList = (params, list) => {
        params.#list = list;
      };
      linkToUrl = (params, changed) => {
        params.#changed = changed;
      };
    }

    constructor(init = '') {
      if (typeof init === 'object' && init !== null) {
        if (typeof init[Symbol.iterator] === 'function') {
          for (const pair of init) {
            const items = [...pair];
            if (items.length !== 2) throw new TypeError('Each pair given to URLSearchParams must hold two items.');
            this.#list.push([toUSVString(items[0]), toUSVString(items[1])]);
          }
        } else {
          for (const key of Object.keys(init)) this.#list.push([toUSVString(key), toUSVString(init[key])]);
        }
      } else {
        const text = toUSVString(init);
        this.#list = parseForm(text.startsWith('?') ? text.slice(1) : text);
      }
    }

    #update() {
      if (this.#changed) this.#changed(this.#list.length === 0 ? null : serializeForm(this.#list));
    }

    get size() {
      return this.#list.length;
    }

    append(name, value) {
      this.#list.push([toUSVString(name), toUSVString(value)]);
      this.#update();
    }

    delete(name, value) {
      const key = toUSVString(name);
      const only = value === undefined ? undefined : toUSVString(value);
      this.#list = this.#list.filter(([n, v]) => n !== key || (only !== undefined && v !== only));
      this.#update();
    }

    get(name) {
      const key = toUSVString(name);
      const found = this.#list.find(([n]) => n === key);
      return found ? found[1] : null;
    }

    getAll(name) {
      const key = toUSVString(name);
      return this.#list.filter(([n]) => n === key).map(([, v]) => v);
    }

    has(name, value) {
      const key = toUSVString(name);
      const only = value === undefined ? undefined : toUSVString(value);
      return this.#list.some(([n, v]) => n === key && (only === undefined || v === only));
    }

    set(name, value) {
      const key = toUSVString(name);
      const at = this.#list.findIndex(([n]) => n === key);
      if (at < 0) this.#list.push([key, toUSVString(value)]);
      else {
        this.#list[at] = [key, toUSVString(value)];
        this.#list = this.#list.filter(([n], index) => n !== key || index <= at);
      }
      this.#update();
    }

    sort() {
      const units = (text) => [...Array(text.length).keys()].map((i) => text.charCodeAt(i));
      this.#list = this.#list
        .map((pair, index) => ({ pair, index, key: units(pair[0]) }))
        .sort((a, b) => {
          for (let i = 0; i < Math.min(a.key.length, b.key.length); i++) {
            if (a.key[i] !== b.key[i]) return a.key[i] - b.key[i];
          }
          return a.key.length - b.key.length || a.index - b.index;
        })
        .map(({ pair }) => pair);
      this.#update();
    }

    forEach(callback, thisArg) {
      for (const [name, value] of this.#list) callback.call(thisArg, value, name, this);
    }

    *entries() {
      for (const [name, value] of this.#list) yield [name, value];
    }

    *keys() {
      for (const [name] of this.#list) yield name;
    }

    *values() {
      for (const [, value] of this.#list) yield value;
    }

    [Symbol.iterator]() {
      return this.entries();
    }

    toString() {
      return serializeForm(this.#list);
    }
  }

  function parseOrThrow(input, base) {
    const record = parseUrl(toUSVString(input), base);
    if (!record) throw new TypeError(`Invalid URL: ${String(input).slice(0, 200)}`);
    return record;
  }

  class URL {
    #record;
    #params = new URLSearchParams();

    constructor(url, base) {
      const baseRecord = base === undefined ? null : parseOrThrow(base, null);
      this.#record = parseOrThrow(url, baseRecord);
      linkToUrl(this.#params, (query) => {
        this.#record.query = query;
      });
      this.#syncParams();
    }

    static canParse(url, base) {
      try {
        const baseRecord = base === undefined ? null : parseOrThrow(base, null);
        return parseUrl(toUSVString(url), baseRecord) !== null;
      } catch {
        return false;
      }
    }

    static parse(url, base) {
      try {
        return new URL(url, base);
      } catch {
        return null;
      }
    }

    #syncParams() {
      replaceList(this.#params, this.#record.query === null ? [] : parseForm(this.#record.query));
    }

    // A setter applies the href its change makes when that parses, as browsers ignore a bad one.
    #reparse(href) {
      const record = parseUrl(href, null);
      if (!record) return;
      this.#record = record;
      this.#syncParams();
    }

    #withRecord(change) {
      const record = {
        ...this.#record,
        path: Array.isArray(this.#record.path) ? [...this.#record.path] : this.#record.path,
      };
      change(record);
      this.#reparse(serialize(record));
    }

    get href() {
      return serialize(this.#record);
    }

    set href(value) {
      this.#record = parseOrThrow(value, null);
      this.#syncParams();
    }

    get origin() {
      const { scheme } = this.#record;
      if (scheme === 'blob' && typeof this.#record.path === 'string') {
        const inner = URL.parse(this.#record.path);
        return inner && /^https?:$/.test(inner.protocol) ? inner.origin : 'null';
      }
      if (!isSpecial(scheme) || scheme === 'file') return 'null';
      return `${scheme}://${serializeHost(this.#record)}`;
    }

    get protocol() {
      return `${this.#record.scheme}:`;
    }

    set protocol(value) {
      const scheme = /^[A-Za-z][A-Za-z0-9+\-.]*/.exec(toUSVString(value))?.[0]?.toLowerCase();
      if (!scheme || isSpecial(scheme) !== isSpecial(this.#record.scheme)) return;
      if (scheme === 'file' && (this.#record.username || this.#record.password || this.#record.port !== null)) return;
      const port = this.#record.port === defaultPort(scheme) ? null : this.#record.port;
      this.#withRecord((record) => Object.assign(record, { scheme, port }));
    }

    get username() {
      return this.#record.username;
    }

    set username(value) {
      if (!this.#record.host || this.#record.scheme === 'file') return;
      this.#record.username = percentEncode(toUSVString(value), userinfoSet);
    }

    get password() {
      return this.#record.password;
    }

    set password(value) {
      if (!this.#record.host || this.#record.scheme === 'file') return;
      this.#record.password = percentEncode(toUSVString(value), userinfoSet);
    }

    get host() {
      return this.#record.host === null ? '' : serializeHost(this.#record);
    }

    set host(value) {
      if (typeof this.#record.path === 'string') return;
      const record = { ...this.#record };
      const rest = parseAuthority(record, toUSVString(value).replace(/[/\\?#].*$/s, ''));
      if (rest === null || (record.host === '' && isSpecial(record.scheme) && record.scheme !== 'file')) return;
      if (!/:\d+$/.test(toUSVString(value))) record.port = this.#record.port;
      this.#reparse(serialize(record));
    }

    get hostname() {
      return this.#record.host ?? '';
    }

    set hostname(value) {
      if (typeof this.#record.path === 'string') return;
      const host = parseHost(toUSVString(value).replace(/[:/\\?#].*$/s, ''), isSpecial(this.#record.scheme));
      if (host === null || (host === '' && isSpecial(this.#record.scheme) && this.#record.scheme !== 'file')) return;
      this.#record.host = host;
    }

    get port() {
      return this.#record.port === null ? '' : String(this.#record.port);
    }

    set port(value) {
      if (!this.#record.host || this.#record.scheme === 'file') return;
      const text = toUSVString(value);
      if (text === '') {
        this.#record.port = null;
        return;
      }
      const digits = /^\d+/.exec(text);
      if (!digits || Number(digits[0]) > 65535) return;
      const port = Number(digits[0]);
      this.#record.port = port === defaultPort(this.#record.scheme) ? null : port;
    }

    get pathname() {
      return serializePath(this.#record);
    }

    set pathname(value) {
      if (typeof this.#record.path === 'string') return;
      const special = isSpecial(this.#record.scheme);
      const text = toUSVString(value);
      this.#record.path = parsePath((special ? /^[/\\]/ : /^\//).test(text) ? text.slice(1) : text, special);
    }

    get search() {
      return this.#record.query ? `?${this.#record.query}` : '';
    }

    set search(value) {
      const text = toUSVString(value);
      const query = text.startsWith('?') ? text.slice(1) : text;
      this.#record.query =
        text === '' ? null : percentEncode(query, isSpecial(this.#record.scheme) ? specialQuerySet : querySet);
      this.#syncParams();
    }

    get searchParams() {
      return this.#params;
    }

    get hash() {
      return this.#record.fragment ? `#${this.#record.fragment}` : '';
    }

    set hash(value) {
      const text = toUSVString(value);
      this.#record.fragment =
        text === '' ? null : percentEncode(text.startsWith('#') ? text.slice(1) : text, fragmentSet);
    }

    toString() {
      return this.href;
    }

    toJSON() {
      return this.href;
    }
  }

  for (const [name, value] of Object.entries({ URL, URLSearchParams })) {
    defineProperty(globalThis, name, { value, writable: true, configurable: true, enumerable: false });
  }
});
