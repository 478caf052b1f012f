/**
 * `node bench/profile-window.ts <file.cpuprofile> <from> <to> [top]`: where a process spent its CPU
 * within a window of a V8 CPU profile (`--cpu-prof`, as bench:scale and bench:creates write them),
 * the window in ms since the epoch (bench:scale prints each steady window's). A profile's clock is
 * monotonic: its end is placed at the file's modification time, written as the process exits.
 * Prints self time by module (a package, or the project's file) and by function, busiest first.
 */
import { readFileSync, statSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}
interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

const [file, fromArg, toArg, topArg] = process.argv.slice(2);
if (!file || !fromArg || !toArg) {
  console.error('usage: node bench/profile-window.ts <file.cpuprofile> <from ms> <to ms> [top]');
  process.exit(2);
}
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const endEpochMs = statSync(file).mtimeMs;
const toEpochMs = (micros: number) => endEpochMs - (profile.endTime - micros) / 1000;
const [from, to, top] = [Number(fromArg), Number(toArg), Number(topArg ?? 25)];

const frames = new Map(profile.nodes.map((node) => [node.id, node.callFrame]));
const byModule = new Map<string, number>();
const byFunction = new Map<string, number>();
let at = profile.startTime;
let inWindowMs = 0;
let idleMs = 0;
profile.samples.forEach((nodeId, index) => {
  at += profile.timeDeltas[index]!;
  const epoch = toEpochMs(at);
  if (epoch < from || epoch >= to) return;
  const ms = (profile.timeDeltas[index + 1] ?? 0) / 1000;
  const frame = frames.get(nodeId)!;
  if (frame.functionName === '(idle)') {
    idleMs += ms;
    return;
  }
  inWindowMs += ms;
  const module = moduleOf(frame.url, frame.functionName);
  byModule.set(module, (byModule.get(module) ?? 0) + ms);
  const name = `${frame.functionName || '(anonymous)'} ${module}:${frame.lineNumber + 1}`;
  byFunction.set(name, (byFunction.get(name) ?? 0) + ms);
});

/** A package's name, the project's own file, or what V8 names its own work. */
function moduleOf(url: string, functionName: string): string {
  if (!url) return functionName.startsWith('(') ? functionName : '(native)';
  const inPackage = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (inPackage) return inPackage[1]!;
  const own = /\/(src|worker|workflows|activities|bin)\/(.+)$/.exec(url);
  if (own) return `${own[1]}/${own[2]}`;
  return url.startsWith('node:') ? url : url.replace(/^file:\/\//, '');
}

const seconds = (to - from) / 1000;
const rows = (map: Map<string, number>) =>
  [...map]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([name, ms]) => `${(ms / 10 / seconds).toFixed(2).padStart(6)} %  ${name}`)
    .join('\n');
console.log(
  `${file}: ${(inWindowMs / 10 / seconds).toFixed(1)} % of one core busy, ${(idleMs / 10 / seconds).toFixed(1)} % idle, over ${seconds.toFixed(0)} s`,
);
console.log(`by module:\n${rows(byModule)}\n\nby function:\n${rows(byFunction)}`);
