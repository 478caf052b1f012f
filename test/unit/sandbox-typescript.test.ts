import { describe, expect, it } from 'vitest';
import { stripTypes } from '../../src/sandbox/typescript.ts';
import { validateFunctionCode } from '../../src/sandbox/validate.ts';
import { run } from '../support/sandbox.ts';

const typed = `interface Params {
  name: string;
  times?: number;
}
type Greeting = { text: string; length: number };

export default async function (context: { params: Params }): Promise<Greeting> {
  const times: number = context.params.times ?? 1;
  const text = (context.params.name as string).repeat(times);
  return { text, length: text.length } satisfies Greeting;
}
`;

describe('TypeScript functions (runtime typescript)', () => {
  it('runs a function with an interface, a type alias and annotations', async () => {
    const outcome = await run(typed, { typescript: true, params: { name: 'neo', times: 2 } });
    expect(outcome).toMatchObject({ status: 'completed', result: { text: 'neoneo', length: 6 } });
  });

  it('keeps lines and columns: a stack frame points into the TypeScript as written', async () => {
    const code =
      'interface P { n: number }\nmodule.exports = async (context: { params: P }) => {\n  throw new Error("at line 3");\n};';
    const outcome = await run(code, { typescript: true });
    expect(outcome).toMatchObject({ status: 'failed', error: { message: 'at line 3' } });
    expect(outcome.status === 'failed' && outcome.error.stack).toMatch(/function\.js:3:9/);
  });

  it('accepts TypeScript at save time and refuses it as JavaScript', async () => {
    expect(await validateFunctionCode(typed, true, 'acct_test')).toEqual({ ok: true });
    expect(await validateFunctionCode(typed, false, 'acct_test')).toMatchObject({ ok: false });
  });

  it('answers a syntax error with its message, line and column', async () => {
    const code = 'interface P { n: number }\nexport default async (context: P) => {\n  const x: = 1;\n};';
    expect(await validateFunctionCode(code, true, 'acct_test')).toEqual({
      ok: false,
      message: expect.stringMatching(/^The code does not parse as TypeScript: Unexpected token `=`/),
      line: 3,
      column: 12,
    });
  });

  it('counts columns in UTF-16 units, as V8 does, whatever tabs and wide characters the line holds', () => {
    expect(stripTypes('\tconst a: = 1;')).toMatchObject({ ok: false, line: 1, column: 11 });
    expect(stripTypes('const s = "中文😀"; let b: = 1;')).toMatchObject({ ok: false, line: 1, column: 26 });
  });

  it('refuses syntax that needs a transform (enum, namespace, parameter properties), with its line', async () => {
    const enumCode = 'export default async () => 1;\nenum Color { Red }';
    expect(await validateFunctionCode(enumCode, true, 'acct_test')).toMatchObject({
      ok: false,
      message: expect.stringContaining('enum is not supported in strip-only mode'),
      line: 2,
    });
  });

  it('checks the entry point of the stripped code', async () => {
    expect(await validateFunctionCode('const helper = (n: number): number => n;', true, 'acct_test')).toMatchObject({
      ok: false,
      message: expect.stringMatching(/^Define the function as/),
    });
  });
});
