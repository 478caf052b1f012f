import { describe, expect, it } from 'vitest';
import { CanonicalJsonError, canonicalJson } from '../../src/receipts/canonical-json.ts';

/** RFC 8785, Appendix B: IEEE 754 doubles (as hex) and their canonical text. */
const numberVectors: [string, string][] = [
  ['0000000000000000', '0'],
  ['8000000000000000', '0'],
  ['0000000000000001', '5e-324'],
  ['8000000000000001', '-5e-324'],
  ['7fefffffffffffff', '1.7976931348623157e+308'],
  ['ffefffffffffffff', '-1.7976931348623157e+308'],
  ['4340000000000000', '9007199254740992'],
  ['c340000000000000', '-9007199254740992'],
  ['4430000000000000', '295147905179352830000'],
  ['44b52d02c7e14af5', '9.999999999999997e+22'],
  ['44b52d02c7e14af6', '1e+23'],
  ['44b52d02c7e14af7', '1.0000000000000001e+23'],
  ['444b1ae4d6e2ef4e', '999999999999999700000'],
  ['444b1ae4d6e2ef4f', '999999999999999900000'],
  ['444b1ae4d6e2ef50', '1e+21'],
  ['3eb0c6f7a0b5ed8c', '9.999999999999997e-7'],
  ['3eb0c6f7a0b5ed8d', '0.000001'],
  ['41b3de4355555553', '333333333.3333332'],
  ['41b3de4355555554', '333333333.33333325'],
  ['41b3de4355555555', '333333333.3333333'],
  ['41b3de4355555556', '333333333.3333334'],
  ['41b3de4355555557', '333333333.33333343'],
  ['becbf647612f3696', '-0.0000033333333333333333'],
  ['43143ff3c1cb0959', '1424953923781206.2'],
];

const double = (hex: string) => Buffer.from(hex, 'hex').readDoubleBE(0);

describe('RFC 8785 canonical JSON', () => {
  it.each(numberVectors)('the double %s is written %s (Appendix B)', (hex, text) => {
    expect(canonicalJson(double(hex))).toBe(text);
  });

  it('NaN and Infinity (Appendix B: 7fffffffffffffff, 7ff0000000000000) have no canonical form', () => {
    expect(() => canonicalJson(double('7fffffffffffffff'))).toThrow(CanonicalJsonError);
    expect(() => canonicalJson(double('7ff0000000000000'))).toThrow(CanonicalJsonError);
  });

  it('the example of section 3.2.2 (whitespace, literals, numbers, string escapes)', () => {
    const input = String.raw`{
      "numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],
      "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/",
      "literals": [null, true, false]
    }`;
    expect(canonicalJson(JSON.parse(input))).toBe(
      String.raw`{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\u000f\nA'B\"\\\\\"/"}`,
    );
  });

  it('members sort by UTF-16 code units, as section 3.2.3 orders its example', () => {
    const input = String.raw`{
      "\u20ac": "Euro Sign",
      "\r": "Carriage Return",
      "\ufb33": "Hebrew Letter Dalet With Dagesh",
      "1": "One",
      "\ud83d\ude00": "Emoji: Grinning Face",
      "\u0080": "Control",
      "\u00f6": "Latin Small Letter O With Diaeresis"
    }`;
    // Read back, JavaScript would put the integer-like name "1" first: compare the text.
    const order = ['\r', '1', '\u0080', '\u00f6', '\u20ac', '\ud83d\ude00', '\ufb33'];
    const names = [...canonicalJson(JSON.parse(input)).matchAll(/"([^"]*)":/g)].map(
      (match) => JSON.parse(`"${match[1]}"`) as string,
    );
    expect(names).toEqual(order);
  });

  it("the UTF-8 of the sorted example is byte for byte the RFC's (section 3.2.4)", () => {
    const value = { '€': 'Euro Sign', '\r': 'Carriage Return', '1': 'One' };
    expect(Buffer.from(canonicalJson(value)).toString('hex')).toBe(
      Buffer.from('{"\\r":"Carriage Return","1":"One","€":"Euro Sign"}').toString('hex'),
    );
  });

  it('nested objects sort at every depth; arrays keep their order; undefined members are left out', () => {
    expect(canonicalJson({ b: [{ z: 1, a: 2 }, 3], a: { d: undefined, c: null } })).toBe(
      '{"a":{"c":null},"b":[{"a":2,"z":1},3]}',
    );
  });

  it('a lone surrogate, in a value or a name, has no canonical form (I-JSON)', () => {
    expect(() => canonicalJson('\ud800')).toThrow(CanonicalJsonError);
    expect(() => canonicalJson({ '\udc00': 1 })).toThrow(CanonicalJsonError);
  });
});
