import { describe, expect, it } from 'vitest';
import { BlockPace } from '../../src/automations/blocks/block-pace.ts';

/** A pace that saw `gaps.length` blocks after the first, each gap in ms, the first block seen at 0. */
function paceAfter(gaps: number[], pollMs = 200) {
  const pace = new BlockPace(pollMs);
  let at = 0;
  pace.note(100, at);
  gaps.forEach((gap, index) => pace.note(101 + index, (at += gap)));
  return { pace, lastAt: at, next: 100 + gaps.length };
}

describe('BlockPace: when a follower at the head next asks for the height', () => {
  it('asks at once until it has seen enough blocks to know the pace', () => {
    const { pace, next } = paceAfter([15_000, 15_000, 15_000]);
    expect(pace.quietUntil(next)).toBe(0);
  });

  it('waits out a 15-second chain until 1.5 s before the next block is due (a tenth of the gap)', () => {
    const { pace, lastAt, next } = paceAfter(Array<number>(8).fill(15_000));
    expect(pace.quietUntil(next)).toBe(lastAt + 15_000 - 1_500);
  });

  it('on a 1-second chain begins two polls before the due time', () => {
    const { pace, lastAt, next } = paceAfter(Array<number>(8).fill(1_000));
    expect(pace.quietUntil(next)).toBe(lastAt + 1_000 - 400);
  });

  it('paces by the shortest recent gap, so a block that comes early is still looked for', () => {
    const { pace, lastAt, next } = paceAfter([15_000, 15_000, 9_000, 15_000, 15_000, 15_000, 15_000, 15_000]);
    expect(pace.quietUntil(next)).toBe(lastAt + 9_000 - 900);
  });

  it('asks at once while the caller is behind the heights seen (catching up)', () => {
    const { pace, next } = paceAfter(Array<number>(8).fill(15_000));
    expect(pace.quietUntil(next - 1)).toBe(0);
  });

  it('asks at every poll again once several blocks appeared in one look', () => {
    const { pace, lastAt } = paceAfter(Array<number>(8).fill(15_000));
    pace.note(pace.count + 3, lastAt + 15_000);
    expect(pace.quietUntil(pace.count)).toBeLessThanOrEqual(lastAt + 15_000);
  });

  it('ignores a lower height (a node behind the others) and keeps the highest seen', () => {
    const { pace, next } = paceAfter(Array<number>(8).fill(1_000));
    pace.note(next - 5, 99_999);
    expect(pace.count).toBe(next);
    expect(pace.quietUntil(next)).toBe(8_000 + 1_000 - 400);
  });
});
