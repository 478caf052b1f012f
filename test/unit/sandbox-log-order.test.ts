import { expect, it } from 'vitest';
import { run } from '../support/sandbox.ts';

// A line logged after an awaited service call, just before the run ends, is the run's last word
// (what a fetch answered, why it failed): it must be stored whenever the run ends. Many runs at
// once, as a worker runs them, so that the end and the line race: without the run's closing
// flush (bootstrap.js), rounds of 100 runs lost 2 to 37 lines, rounds of 10 often none. The
// hundred are the point, so the test has time for them on a loaded machine.
it.each([
  ['returns', 'return 1;'],
  ['throws', "throw new Error('after the line');"],
])(
  'keeps the last line of a run that %s right after logging, past an awaited service call',
  async (_ends, end) => {
    const code = `module.exports = async (context) => {
    const answer = await context.services.http.fetch('https://api.example.com/');
    context.log.info('answered', answer.status);
    ${end}
  };`;
    const runs = await Promise.all(Array.from({ length: 100 }, () => run(code)));
    expect(runs.filter((outcome) => outcome.logs.length !== 1)).toEqual([]);
    expect(runs[0]!.logs[0]).toMatchObject({ level: 'info', message: 'answered 200' });
  },
  30_000,
);
