import { describe, expect, it } from 'vitest';
import { bounded, changeSummary, safeValue, valuesSummary } from '../../src/audit/summary.ts';

describe('audit summaries', () => {
  it('names every field set and shows only the values marked safe', () => {
    const summary = changeSummary(
      { name: 'greeter', code: 'module.exports = async () => 1', secrets: ['GREETING'], description: undefined },
      ['name'],
      { version: 2 },
    );
    expect(summary).toEqual({ fields: ['name', 'code', 'secrets'], values: { name: 'greeter', version: 2 } });
  });

  it('refuses a value that looks like a key, a WIF or a URL even when marked safe', () => {
    expect(safeValue(`nf_${'a'.repeat(43)}`)).toBe('[redacted]');
    expect(safeValue('KxDgvEKzgSBPPfuVfw67oPQBSjidEiqTHURKSDL1R7yGaGYAeYnr')).toBe('[redacted]');
    expect(safeValue('https://hooks.example.com/T0/B0/secret')).toBe('[redacted]');
    expect(safeValue('/services/T0/B0')).toBe('[redacted]');
    expect(safeValue('every minute')).toBe('every minute');
  });

  it('drops values that are not scalars and cuts long text', () => {
    expect(safeValue({ nested: true })).toBeUndefined();
    expect(safeValue(Number.NaN)).toBeUndefined();
    expect(safeValue('x'.repeat(500))).toHaveLength(100);
    expect(valuesSummary({ args: [1, 2], fee: '0.1' })).toEqual({ values: { fee: '0.1' } });
  });

  it('stays within the column whatever it is given', () => {
    const many = Object.fromEntries(
      Array.from({ length: 100 }, (_, index) => [`f${index}${'é'.repeat(80)}`, '😀'.repeat(99)]),
    );
    const summary = bounded({ fields: Object.keys(many), values: many });
    expect(summary.fields).toHaveLength(24);
    expect(Buffer.byteLength(JSON.stringify(summary))).toBeLessThanOrEqual(4096);
  });

  it('makes stored text storable', () => {
    expect(safeValue('a\0b')).toBe('a\uFFFDb');
  });
});
