import { describe, expect, it } from 'vitest';
import { jsonbParam } from '../../src/db/jsonb-param.ts';
import { storable, storableJson, storableText } from '../../src/db/storable.ts';

const unstorable = { 'k\u0000ey': ['a\u0000b', { '\ud800': 'lone \udfff' }], nested: { deep: 'x\u0000y' } };
const madeStorable = { 'k\uFFFDey': ['a\uFFFDb', { '\uFFFD': 'lone \uFFFD' }], nested: { deep: 'x\uFFFDy' } };

describe('the storable boundary', () => {
  it('replaces U+0000 and lone surrogates in text with U+FFFD, and keeps surrogate pairs', () => {
    expect(storableText('a\u0000b\u0000')).toBe('a\uFFFDb\uFFFD');
    expect(storableText('\ud800 \udfff')).toBe('\uFFFD \uFFFD');
    expect(storableText('neo 🟢 ok')).toBe('neo 🟢 ok');
  });

  it('makes every key and string value of nested JSON storable, in memory and as jsonb text', () => {
    expect(storable(unstorable)).toEqual(madeStorable);
    expect(JSON.parse(storableJson(unstorable))).toEqual(madeStorable);
    expect(JSON.parse(jsonbParam(unstorable)!)).toEqual(madeStorable);
    expect(jsonbParam(unstorable)).not.toMatch(/\\u0000|\\ud[89a-f]/i);
  });

  it('keeps what needs nothing: numbers, null, dates in their JSON form, and SQL null', () => {
    const at = new Date('2026-01-02T03:04:05.000Z');
    expect(storable({ n: 1, b: true, z: null, at })).toEqual({ n: 1, b: true, z: null, at });
    expect(storableJson({ at, list: [1, 'a\u0000'] })).toBe('{"at":"2026-01-02T03:04:05.000Z","list":[1,"a\uFFFD"]}');
    expect(jsonbParam(null)).toBeNull();
  });

  it('makes storable what only a toJSON or a class instance holds', () => {
    class Holder {
      text = 'in\u0000stance';
    }
    const custom = { toJSON: () => ({ 'to\u0000': 'json\u0000' }) };
    expect(JSON.parse(storableJson({ holder: new Holder(), custom }))).toEqual({
      holder: { text: 'in\uFFFDstance' },
      custom: { 'to\uFFFD': 'json\uFFFD' },
    });
  });

  it('keeps a key named __proto__ as a key, never as a prototype', () => {
    const parsed = JSON.parse('{"__proto__": {"polluted\\u0000": true}}') as unknown;
    const cleaned = storable(parsed) as Record<string, unknown>;
    expect(Object.getPrototypeOf(cleaned)).toBe(Object.prototype);
    expect(Object.keys(cleaned)).toEqual(['__proto__']);
    expect(JSON.parse(storableJson(parsed))).toEqual(JSON.parse('{"__proto__": {"polluted\\ufffd": true}}'));
  });
});
