import { describe, expect, it } from 'vitest';
import { validateJavaScript } from '../../src/sandbox/validate.ts';
import { resultOf, run } from '../support/sandbox.ts';

describe('sandbox entry forms', () => {
  it('runs the workers with --no-node-snapshot, which isolated-vm needs', () => {
    expect(process.execArgv).toContain('--no-node-snapshot');
  });

  it.each([
    ['module.exports', 'module.exports = async (context) => context.params.n * 2;'],
    ['export default', 'export default async function (context) { return context.params.n * 2; }'],
    ['exports.handler', 'exports.handler = async (context) => context.params.n * 2;'],
    ['module.exports.handler', 'module.exports.handler = (context) => context.params.n * 2;'],
    ['top-level main', 'async function main(context) {\n  return context.params.n * 2;\n}'],
  ])('runs the %s form', async (_form, code) => {
    expect(await resultOf(code, { params: { n: 21 } })).toBe(42);
  });

  it('completes with null when the function returns nothing', async () => {
    expect(await resultOf('module.exports = async () => {};')).toBeNull();
  });

  it('fails with EntryPointError when the code defines no entry point', async () => {
    const outcome = await run('const x = 1;');
    expect(outcome).toMatchObject({ status: 'failed', error: { name: 'EntryPointError' } });
  });

  it('fails a module that imports anything', async () => {
    const outcome = await run("import fs from 'fs';\nexport default async () => fs;");
    expect(outcome).toMatchObject({ status: 'failed', error: { message: 'Functions cannot import modules.' } });
  });
});

describe('validateJavaScript', () => {
  it.each([
    'module.exports = async (context) => 1;',
    'export default async function (context) { return 1; }',
    'exports.handler = async () => 1;',
    'async function main(context) { return 1; }',
  ])('accepts %s', async (code) => {
    expect(await validateJavaScript(code)).toEqual({ ok: true });
  });

  it('rejects code that does not parse, with line and column', async () => {
    const validation = await validateJavaScript('module.exports = async () => {\n  return 1 +;\n};');
    expect(validation).toMatchObject({ ok: false, line: 2, column: 13 });
    expect(validation.ok || validation.message).toMatch(/^The code does not parse: Unexpected token ';'/);
  });

  it('reports the module parse error for module code', async () => {
    expect(await validateJavaScript('export default (\n')).toMatchObject({ ok: false, line: 2, column: 1 });
  });

  it('rejects a module that imports anything', async () => {
    const validation = await validateJavaScript("import fs from 'fs';\nexport default async () => fs;");
    expect(validation).toEqual({ ok: false, message: 'Functions cannot import modules.' });
  });

  // Quadratic entry-form patterns took 0.9 s for 16,000 blank lines, minutes for this many.
  it.each([
    ['blank lines', '\n'.repeat(250_000)],
    ['lines of spaces', ' \n'.repeat(125_000)],
    ['blank lines, then an entry form', `${'\n'.repeat(250_000)}export default async () => 1;`],
  ])('checks 256 KiB of %s in linear time', async (_what, code) => {
    const began = performance.now();
    await validateJavaScript(code);
    expect(performance.now() - began).toBeLessThan(2_000);
  });

  it('rejects code that defines none of the entry forms', async () => {
    const validation = await validateJavaScript('const helper = () => 1;');
    expect(validation).toMatchObject({ ok: false, message: expect.stringContaining('module.exports') });
    expect(validation).not.toHaveProperty('line');
  });
});
