/**
 * `npm run bench:typescript-puts`: what one account's saves of a large TypeScript function cost
 * another account (issue 44, item 3). One account sends 20 PUTs of a 250 KiB TypeScript function
 * at 10/s while another reads its own function as fast as it is answered, one request at a time.
 * Three kinds of block alternate: the other account alone (the floor), the PUTs naming only the
 * runtime (nothing changed: nothing to strip), and the PUTs changing the code each time (each one
 * stripped, off the API's main thread). It prints the other account's latencies in each block and
 * their ratio to the floor of the same round. A benchmark, not a test: it exits 0 whatever its
 * figures.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { countFrom, printReport, progress, runBench, summarise, type Latencies } from './measure.ts';
import { apiClient, startInProcessApi, startScratchStack } from './scratch-stack.ts';

const counts = {
  puts: countFrom('BENCH_PUTS', 20),
  perSecond: countFrom('BENCH_PUTS_PER_SECOND', 10),
  rounds: countFrom('BENCH_PUTS_ROUNDS', 3),
};

type Block = 'floor' | 'runtime-only' | 'code-changing';

interface Envelope {
  data?: { id: string };
}

/** A TypeScript function of about 250 KiB whose every line has types to strip; `variant` changes it. */
function largeTypeScript(variant: number): string {
  const lines = [`// variant ${variant}`];
  for (let index = 0; lines.join('\n').length < 250 * 1024 - 200; index++) {
    const chunk = Array.from(
      { length: 100 },
      (_, offset) =>
        `const f${index * 100 + offset} = (a: number, b: string): string => b + String(a * ${variant + 1});`,
    );
    lines.push(...chunk);
  }
  while (lines.join('\n').length > 250 * 1024 - 200) lines.pop();
  lines.push('export default async (context: { params: { n: number } }): Promise<number> => context.params.n;');
  return lines.join('\n');
}

await runBench('typescript-puts', {
  counts,
  notes: [`function code: ${(largeTypeScript(0).length / 1024).toFixed(0)} KiB of TypeScript`],
  start: (report) =>
    startScratchStack('neoflow-bench-ts-puts-', report, async (base) => {
      // The other account reads as fast as it is answered: far above the default rate per key.
      const api = await startInProcessApi(base, report, {}, { rate: { requests: 1_000_000, windowSeconds: 1 } });
      return { ...base, api, otherKey: await api.keyFor('bench-other') };
    }),
  measure: async (stack) => {
    const saver = apiClient<Envelope>(stack.api);
    const reader = apiClient<Envelope>({ apiUrl: stack.api.apiUrl, apiKey: stack.otherKey });
    const large = await saver('POST', '/functions', {
      name: 'large',
      code: largeTypeScript(0),
      runtime: 'typescript',
    });
    if (large.status !== 201) throw new Error(`the large function was answered ${large.status}`);
    const small = await reader('POST', '/functions', {
      name: 'small',
      runtime: 'node18',
      code: 'module.exports = async () => 1;',
    });
    if (small.status !== 201)
      throw new Error(`the small function was answered ${small.status}: ${JSON.stringify(small.body)}`);
    const largeId = large.body.data!.id;
    const smallId = small.body.data!.id;
    let variant = 0;

    /** The other account's reads while `block`'s PUTs go on (for as long, on the floor). */
    const measureBlock = async (block: Block): Promise<{ reads: Latencies; puts: Latencies }> => {
      const putMs: number[] = [];
      const readMs: number[] = [];
      let saving = true;
      const puts = (async () => {
        const started: Promise<void>[] = [];
        for (let index = 0; index < counts.puts; index++) {
          const at = performance.now();
          if (block !== 'floor') {
            const body = block === 'runtime-only' ? { runtime: 'typescript' } : { code: largeTypeScript(++variant) };
            started.push(
              saver('PUT', `/functions/${largeId}`, body).then((answer) => {
                if (answer.status !== 200) throw new Error(`a PUT was answered ${answer.status}`);
                putMs.push(performance.now() - at);
              }),
            );
          }
          await sleep(1000 / counts.perSecond);
        }
        await Promise.all(started);
        saving = false;
      })();
      while (saving) {
        const at = performance.now();
        const answer = await reader('GET', `/functions/${smallId}`);
        if (answer.status !== 200) throw new Error(`the other account's read was answered ${answer.status}`);
        readMs.push(performance.now() - at);
      }
      await puts;
      return { reads: summarise(readMs), puts: summarise(putMs) };
    };

    const lines: string[] = [];
    const worst: Record<Block, number> = { floor: 0, 'runtime-only': 0, 'code-changing': 0 };
    for (let round = 1; round <= counts.rounds; round++) {
      const floor = await measureBlock('floor');
      worst.floor = Math.max(worst.floor, floor.reads.max);
      const describe = (block: Block, figures: { reads: Latencies; puts: Latencies }) =>
        `  round ${round} ${block.padEnd(13)}: other account's reads p50 ${figures.reads.p50.toFixed(1)} ms ` +
        `p95 ${figures.reads.p95.toFixed(1)} max ${figures.reads.max.toFixed(1)} ms (${figures.reads.count} reads, ` +
        `p50 ${(figures.reads.p50 / floor.reads.p50).toFixed(2)}× the floor)` +
        (figures.puts.count ? `; PUTs p50 ${figures.puts.p50.toFixed(0)} max ${figures.puts.max.toFixed(0)} ms` : '');
      lines.push(describe('floor', floor));
      progress(lines.at(-1)!);
      for (const block of ['runtime-only', 'code-changing'] as const) {
        const figures = await measureBlock(block);
        worst[block] = Math.max(worst[block], figures.reads.max);
        lines.push(describe(block, figures));
        progress(lines.at(-1)!);
      }
    }
    lines.push(
      `  the other account's slowest answer: ${worst.floor.toFixed(0)} ms alone, ` +
        `${worst['runtime-only'].toFixed(0)} ms during runtime-only PUTs, ${worst['code-changing'].toFixed(0)} ms during code-changing PUTs`,
    );
    printReport('typescript-puts', lines);
  },
});
