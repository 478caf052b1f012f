/** A run's time on the wall clock, as the run itself reported it (ms since the epoch). */
export interface TimeSpan {
  start: number;
  end: number;
}

/** The most spans that overlap at any moment: how many ran at once. */
export function mostAtOnce(spans: readonly TimeSpan[]): number {
  const edges = spans.flatMap(({ start, end }) => [
    { at: start, change: 1 },
    { at: end, change: -1 },
  ]);
  // At equal times an end comes first: a run that starts as another ends is not beside it.
  edges.sort((a, b) => a.at - b.at || a.change - b.change);
  let running = 0;
  let most = 0;
  for (const { change } of edges) most = Math.max(most, (running += change));
  return most;
}
