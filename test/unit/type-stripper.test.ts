import { describe, expect, it } from 'vitest';
import { stripTypesForRun } from '../../src/sandbox/strip-cache.ts';
import { TypeStripper, type StripOutcome } from '../../src/sandbox/type-stripper.ts';
import { validateFunctionCode } from '../../src/sandbox/validate.ts';

const typed = 'export default async (context: { params: { n: number } }): Promise<number> => context.params.n;';
// Node's stripper runs out of memory on this and, in the thread that met it, fails every later code.
const deepNesting = `export default async () => ${'('.repeat(1500)}1${')'.repeat(1500)};`;
/** About 250 KiB of plain TypeScript: a tenth of a second or more to strip. */
const large = (tag: string) => {
  let code = `export default async (): Promise<string> => '${tag}';\n`;
  for (let i = 0; code.length < 250 * 1024; i += 1) {
    code += `interface P${i} { a: number }\nexport function f${i}(x: P${i}): number { return x.a * ${i}; }\n`;
  }
  return code;
};

describe('stripping TypeScript in threads (type-stripper.ts)', () => {
  it("refuses code that breaks Node's stripper with 400-worthy words, and strips the next code as before", async () => {
    const refused = await validateFunctionCode(deepNesting, true, 'acct_a');
    expect(refused).toMatchObject({
      ok: false,
      message: expect.stringMatching(/^The code could not be stripped of its types/),
    });
    expect(await validateFunctionCode(typed, true, 'acct_b')).toEqual({ ok: true });
  });

  it('stops a code that outlives its deadline', async () => {
    const stripper = new TypeStripper({ threads: 1, deadlineMs: 20, queuedPerLane: 4 });
    expect(await stripper.strip(large('slow'), 'acct_a')).toMatchObject({ ok: false, refused: 'deadline' });
  });

  it("serves lanes in turn: one account's queued codes hold another's back by one code at most", async () => {
    const stripper = new TypeStripper({ threads: 1, deadlineMs: 30_000, queuedPerLane: 4 });
    const order: string[] = [];
    const strip = (tag: string, lane: string) =>
      stripper.strip(tag === 'b' ? typed : large(tag), lane).then((outcome: StripOutcome) => {
        expect(outcome.ok).toBe(true);
        order.push(tag);
      });
    const first = ['a1', 'a2', 'a3', 'a4'].map((tag) => strip(tag, 'acct_a'));
    await Promise.all([...first, strip('b', 'acct_b')]);
    expect(order).toEqual(['a1', 'b', 'a2', 'a3', 'a4']);
  });

  it("refuses at once a lane's code beyond those it may have waiting", async () => {
    const stripper = new TypeStripper({ threads: 1, deadlineMs: 30_000, queuedPerLane: 2 });
    const codes = ['a1', 'a2', 'a3', 'a4'].map((tag) => stripper.strip(large(tag), 'acct_a'));
    const outcomes = await Promise.all(codes);
    expect(outcomes.map((outcome) => ('refused' in outcome ? outcome.refused : outcome.ok))).toEqual([
      true,
      true,
      true,
      'busy',
    ]);
  });
});

describe("a run's stripped code, cached by the code's hash (strip-cache.ts)", () => {
  it('strips a code once for every run of it, those arriving together included', async () => {
    const calls: string[] = [];
    const stripper = {
      strip: async (code: string) => {
        calls.push(code);
        return { ok: true as const, code: code.replace(': number', '') };
      },
    } as unknown as TypeStripper;
    const code = `export default (n: number) => n; // ${Math.random()}`;
    const together = await Promise.all([1, 2, 3].map(() => stripTypesForRun(code, 'func_a', stripper)));
    const later = await stripTypesForRun(code, 'func_a', stripper);
    expect(calls).toHaveLength(1);
    expect([...together, later].every((outcome) => outcome.ok && !outcome.code.includes(': number'))).toBe(true);
  });
});
