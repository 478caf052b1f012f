import { runInNewContext } from 'node:vm';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { codePointText } from '../support/code-point-text.ts';
import { resultOf, run } from '../support/sandbox.ts';

/** The isolate's value of `expression` (JSON data), computed with `params` at hand. */
const inIsolate = (expression: string, params: Record<string, unknown> = {}) =>
  resultOf(`module.exports = async ({ params }) => (${expression});`, { params });

const hostTimers = () => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;

describe('setTimeout and clearTimeout', () => {
  it('fire in order of their delays, pass their arguments, and a cleared one never fires', async () => {
    const code = `module.exports = async () => {
      const fired = [];
      await new Promise((resolve) => {
        setTimeout((name) => fired.push(name), 20, 'late');
        setTimeout((name) => fired.push(name), 0, 'first');
        clearTimeout(setTimeout(() => fired.push('cleared'), 5));
        setTimeout(resolve, 40);
      });
      return fired;
    };`;
    expect(await resultOf(code)).toEqual(['first', 'late']);
  });

  it('ends a run whose setTimeout waits past its timeout with TimeoutError', async () => {
    const code = 'module.exports = async () => { await new Promise((r) => setTimeout(r, 60_000)); return "woke"; };';
    const outcome = await run(code, { timeoutMs: 300 });
    expect(outcome).toMatchObject({ status: 'failed', error: { name: 'TimeoutError' } });
  });

  it('keeps no run alive: a run returns with timers pending, which never fire and hold no host timer after it', async () => {
    const before = hostTimers();
    const calls: unknown[][] = [];
    const { fakeServices } = await import('../support/sandbox.ts');
    const code = `module.exports = async (context) => {
      setTimeout(() => context.services.blockchain.getBalance('late', 'NEO'), 0);
      setTimeout(() => context.services.blockchain.getBalance('later', 'NEO'), 30_000);
      return 'returned';
    };`;
    const outcome = await run(code, { services: fakeServices(calls), timeoutMs: 60_000 });
    expect(outcome).toMatchObject({ status: 'completed', result: 'returned' });
    expect(outcome.durationMs).toBeLessThan(30_000);
    expect(hostTimers()).toBe(before);
    // The zero-delay timer's turn has come and gone: the run's isolate is disposed, nothing ran.
    await new Promise((resolve) => setImmediate(resolve));
    expect(calls).toEqual([]);
  });

  it("fails the run with the error a timer's callback throws", async () => {
    const code = `module.exports = async () => {
      setTimeout(() => { throw new RangeError('from a timer'); }, 0);
      await new Promise((resolve) => setTimeout(resolve, 10_000));
    };`;
    expect(await run(code)).toMatchObject({ status: 'failed', error: { name: 'RangeError', message: 'from a timer' } });
  });

  it('bounds timers: pending at once, in all, and refuses a string to evaluate', async () => {
    const code = `module.exports = async () => {
      const errors = [];
      try { for (let i = 0; i < 101; i++) setTimeout(() => {}, 60_000); } catch (e) { errors.push(e.name + ': ' + e.message); }
      try { setTimeout('1 + 1', 0); } catch (e) { errors.push(e.name); }
      return errors;
    };`;
    expect(await resultOf(code)).toEqual([
      'TimerLimitError: A function may have at most 100 timers pending.',
      'TypeError',
    ]);
    const many = `module.exports = async () => {
      for (let batch = 0; batch < 10; batch++) {
        await Promise.all(Array.from({ length: 100 }, () => new Promise((resolve) => setTimeout(resolve, 0))));
      }
      try { setTimeout(() => {}, 0); } catch (e) { return e.message; }
    };`;
    expect(await resultOf(many, { timeoutMs: 20_000 })).toBe('A run may set at most 1000 timers.');
  });
});

describe('TextEncoder and TextDecoder', () => {
  // Generated inputs, all run in one isolate: a run per input would make the test slow, not stronger.
  it('encode as Node does, lone surrogates included', async () => {
    const texts = fc.sample(codePointText(40), { numRuns: 300, seed: 30 });
    expect(texts.filter((text) => !text.isWellFormed()).length, 'texts holding a lone surrogate').toBeGreaterThan(30);
    const encoded = (await inIsolate('params.texts.map((t) => [...new TextEncoder().encode(t)])', {
      texts,
    })) as number[][];
    expect(encoded).toEqual(texts.map((text) => [...new TextEncoder().encode(text)]));
  });

  it('decode any bytes as Node does, replacing each invalid sequence, and streamed in pieces', async () => {
    const chunks = fc.sample(fc.uint8Array({ maxLength: 64 }), { numRuns: 300, seed: 30 });
    const lists = chunks.map((chunk) => [...chunk]);
    const decoded = (await inIsolate(
      `{ whole: params.lists.map((b) => new TextDecoder().decode(new Uint8Array(b))),
         streamed: (() => { const d = new TextDecoder(); return params.lists.map((b) => d.decode(new Uint8Array(b), { stream: true })).join('') + d.decode(); })() }`,
      { lists },
    )) as { whole: string[]; streamed: string };
    expect(decoded.whole).toEqual(chunks.map((chunk) => new TextDecoder().decode(chunk)));
    const node = new TextDecoder();
    expect(decoded.streamed).toBe(chunks.map((chunk) => node.decode(chunk, { stream: true })).join('') + node.decode());
  });

  it('encodeInto writes whole characters; fatal throws; a BOM is skipped unless ignoreBOM', async () => {
    expect(
      await inIsolate(`[
        new TextEncoder().encodeInto('a😀b', new Uint8Array(4)),
        (() => { try { new TextDecoder('utf-8', { fatal: true }).decode(new Uint8Array([0xff])); } catch (e) { return e.name; } })(),
        new TextDecoder().decode(new Uint8Array([0xef, 0xbb, 0xbf, 0x61])).length,
        new TextDecoder('utf-8', { ignoreBOM: true }).decode(new Uint8Array([0xef, 0xbb, 0xbf, 0x61])).length,
        (() => { try { new TextDecoder('latin1'); } catch (e) { return e.name; } })(),
      ]`),
    ).toEqual([{ read: 1, written: 1 }, 'TypeError', 1, 2, 'RangeError']);
  });

  // Filling the isolate is the point: under a 32 MiB limit (inputs of 8 Mi characters at most)
  // rather than the default 128, a quarter of the allocations, and time for a loaded machine.
  it(
    "bounds their input by the isolate's memory: a huge input is refused or ends the run, never the host",
    { timeout: 30_000 },
    async () => {
      const limit = { memoryLimitMb: 32 };
      const refused = await run(
        `module.exports = async () => new TextEncoder().encode('x'.repeat(9 * 1024 * 1024)).length;`,
        limit,
      );
      expect(refused).toMatchObject({
        status: 'failed',
        error: { name: expect.stringMatching(/RangeError|MemoryLimitError/) },
      });
      const exhausting = await run(
        `module.exports = async () => { const kept = []; for (;;) kept.push(new TextEncoder().encode('é'.repeat(2 * 1024 * 1024))); };`,
        limit,
      );
      expect(exhausting).toMatchObject({
        status: 'failed',
        error: { name: expect.stringMatching(/RangeError|MemoryLimitError/) },
      });
    },
  );
});

describe('atob and btoa', () => {
  it('agree with Node on any binary string, and refuse what Node refuses', async () => {
    const byte = fc.integer({ min: 0, max: 255 }).map((code) => String.fromCharCode(code));
    const texts = fc.sample(fc.string({ unit: byte, maxLength: 40 }), { numRuns: 300, seed: 30 });
    const answer = (await inIsolate('params.texts.map((t) => [btoa(t), atob(btoa(t))])', { texts })) as string[][];
    expect(answer).toEqual(texts.map((text) => [btoa(text), text]));
    const refused = await inIsolate(
      `['é😀', 'a', 'ab!c', ' YW Jj ', 'YWJj=', 'YQ'].map((t, i) => { try { return i === 0 ? btoa(t) : atob(t); } catch (e) { return e.name; } })`,
    );
    expect(refused).toEqual([
      'InvalidCharacterError',
      'InvalidCharacterError',
      'InvalidCharacterError',
      'abc',
      'InvalidCharacterError',
      'a',
    ]);
  });
});

describe('structuredClone', () => {
  it('clones what a structured clone holds, cycles included, and refuses functions', async () => {
    const code = `module.exports = async () => {
      const source = { date: new Date(5), map: new Map([['k', { n: 1 }]]), set: new Set([1, 2]), bytes: new Uint16Array([1, 2]),
        regexp: /a+/gi, error: new TypeError('bad'), big: 10n, nested: [{ deep: true }] };
      source.self = source;
      const copy = structuredClone(source);
      let refused;
      try { structuredClone({ f() {} }); } catch (e) { refused = e.name; }
      return {
        distinct: copy !== source && copy.map.get('k') !== source.map.get('k') && copy.nested[0] !== source.nested[0],
        cycle: copy.self === copy,
        date: copy.date instanceof Date && copy.date.getTime(), map: copy.map.get('k'), set: [...copy.set],
        bytes: copy.bytes instanceof Uint16Array && [...copy.bytes], regexp: String(copy.regexp),
        error: copy.error instanceof TypeError && copy.error.message, big: String(copy.big), refused,
      };
    };`;
    expect(await resultOf(code)).toEqual({
      distinct: true,
      cycle: true,
      date: 5,
      map: { n: 1 },
      set: [1, 2],
      bytes: [1, 2],
      regexp: '/a+/gi',
      error: 'bad',
      big: '10',
      refused: 'DataCloneError',
    });
  });
});

describe('crypto', () => {
  it('fills integer arrays, makes v4 UUIDs, refuses floats and more than 64 KiB', async () => {
    const answer = (await inIsolate(`{
      uuids: Array.from({ length: 50 }, () => crypto.randomUUID()),
      filled: crypto.getRandomValues(new Uint32Array(64)).some((n) => n !== 0),
      float: (() => { try { crypto.getRandomValues(new Float64Array(1)); } catch (e) { return e.name; } })(),
      quota: (() => { try { crypto.getRandomValues(new Uint8Array(65537)); } catch (e) { return e.name; } })(),
      large: crypto.getRandomValues(new Uint8Array(65536)).length,
    }`)) as { uuids: string[]; filled: boolean; float: string; quota: string; large: number };
    for (const uuid of answer.uuids)
      expect(uuid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(new Set(answer.uuids).size).toBe(50);
    expect(answer).toMatchObject({
      filled: true,
      float: 'TypeMismatchError',
      quota: 'QuotaExceededError',
      large: 65536,
    });
  });

  it('draws randomness from the host 4 KiB at a time, each draw one call of the service quota', async () => {
    const uuids = (n: number) =>
      `module.exports = async () => Array.from({ length: ${n} }, () => crypto.randomUUID()).length;`;
    expect(await run(uuids(256), { maxServiceCalls: 1 })).toMatchObject({ status: 'completed', result: 256 });
    expect(await run(uuids(257), { maxServiceCalls: 1 })).toMatchObject({
      status: 'failed',
      error: { name: 'ServiceQuotaError' },
    });
  });
});

describe('URL and URLSearchParams', () => {
  const fields = [
    'href',
    'origin',
    'protocol',
    'username',
    'password',
    'host',
    'hostname',
    'port',
    'pathname',
    'search',
    'hash',
  ] as const;
  const cases: [string, string?][] = [
    ['https://example.com'],
    ['HTTPS://User:Pa ss@EXAMPLE.com:443/a/./b/../c?x=1 2&y=é#frag ment'],
    ['http://example.com:8080/path/to/file.html?query=string#hash'],
    ['http://[2001:DB8:0:0:0:0:0:1]:80/'],
    ['http://[::ffff:192.168.0.1]/'],
    ['http://[::1]/'],
    ['http://[1::]/'],
    ['http://0x7f.1/'],
    ['http://3232235777/'],
    ['http://010.0.0.1/'],
    ['https://bücher.example/Straße'],
    ['http://example.com/%7Efoo/a%2fb/'],
    ['http://example.com\\a\\b?c'],
    ['  http://example.com/trim  '],
    ['http://exa\tmple.com/\n'],
    ['ws://example.com:80/socket'],
    ['wss://example.com:443/'],
    ['ftp://ftp.example.com:21/pub'],
    ['file:///etc/passwd'],
    ['file://localhost/tmp/x'],
    ['mailto:someone@example.com?subject=hi there'],
    ['data:text/plain,hello world'],
    ['urn:isbn:0451450523'],
    ['git://github.com/org/repo.git'],
    ['javascript:alert(1)'],
    ['custom://host:99/p?q#h'],
    ['../up/one?x#y', 'https://example.com/a/b/c'],
    ['./here', 'https://example.com/a/b/c'],
    ['/absolute', 'https://example.com/a/b/c'],
    ['?only=query', 'https://example.com/a/b/c?old#h'],
    ['#only-hash', 'https://example.com/a/b/c?old'],
    ['', 'https://example.com/a/b/c?old#h'],
    ['//other.example/x', 'https://example.com/a'],
    ['http:relative', 'http://example.com/a/b'],
    ['https://example.com/a/b/..'],
    ['https://example.com/a/%2e%2E/b'],
    ['https://example.com/?a=1&a=2&b=%20+'],
    ['https://example.com/"<>`{}|^'],
    ['https://example.com/?"\'<>'],
    ['https://user@example.com'],
    ['https://:pass@example.com'],
    ['#frag', 'mailto:x'],
  ];
  const invalid: [string, string?][] = [
    ['not a url'],
    ['relative/path'],
    ['http://'],
    ['https://exa mple.com'],
    ['http://[::1/'],
    ['http://example.com:99999/'],
    ['http://example.com:12a/'],
    ['http://256.256.256.256/'],
    ['http://1.2.3.4.5/'],
    ['http://[1:2:3:4:5:6:7:8:9]/'],
    ['other', 'mailto:x'],
  ];

  it('parses as Node does: every field of each URL, relative ones against their base', async () => {
    const answers = (await inIsolate(
      `params.cases.map(([input, base]) => { const u = new URL(input, base); return params.fields.map((f) => u[f]); })`,
      { cases, fields },
    )) as string[][];
    const node = cases.map(([input, base]) => [input, fields.map((field) => new URL(input, base)[field])]);
    expect(cases.map(([input], index) => [input, answers[index]])).toEqual(node);
  });

  it('refuses what Node refuses, with TypeError, and URL.canParse agrees', async () => {
    const answers = (await inIsolate(
      `params.invalid.map(([input, base]) => { try { new URL(input, base); return 'parsed'; } catch (e) { return [e.name, URL.canParse(input, base)]; } })`,
      { invalid },
    )) as unknown[];
    for (const [input, base] of invalid) expect(() => new URL(input, base)).toThrow(TypeError);
    expect(answers).toEqual(invalid.map(() => ['TypeError', false]));
  });

  it('applies setters and keeps searchParams linked to the URL', async () => {
    const script = `(() => {
      const u = new URL('https://example.com/a?x=1#h');
      const seen = [];
      u.searchParams.append('y', 'a b&c');
      seen.push(u.href);
      u.search = '?z=é';
      seen.push(u.searchParams.get('z'));
      u.pathname = '/p q/../r';
      u.hash = 'new';
      u.port = '8443';
      u.hostname = 'Other.Example';
      u.username = 'me';
      u.password = 'p@ss';
      seen.push(u.href);
      u.protocol = 'http';
      u.port = '80';
      seen.push(u.href);
      u.href = 'https://reset.example/?k=v';
      seen.push(u.searchParams.get('k'));
      u.searchParams.delete('k');
      seen.push(u.href);
      return seen;
    })()`;
    const node = runInNewContext(script, { URL }) as string[];
    expect(await inIsolate(script)).toEqual(node);
  });

  it('URLSearchParams behaves as Node: constructors, order, sort, encoding', async () => {
    const script = `(() => {
      const p = new URLSearchParams('?b=2&a=1&a=3&c=%F0%9F%98%80&d=+x+&e');
      const q = new URLSearchParams([['k', 'v 1'], ['k', 'é']]);
      const r = new URLSearchParams({ one: '1', two: "it's ~*" });
      p.sort();
      p.set('a', 'x');
      return [p.toString(), p.getAll('a'), p.get('c'), p.has('e'), p.has('b', '3'), p.size, [...p.keys()],
        q.toString(), r.toString(), [...r.entries()]];
    })()`;
    const node = runInNewContext(script, { URLSearchParams }) as unknown[];
    expect(await inIsolate(script)).toEqual(node);
  });
});
