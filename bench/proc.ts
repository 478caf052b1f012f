import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';

/** Clock ticks per second of /proc/<pid>/stat times (`getconf CLK_TCK`, 100 on Linux almost always). */
const ticksPerSecond = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** User + system CPU seconds a process (all its threads) has used so far, from /proc/<pid>/stat. */
export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The command name (field 2) may hold spaces: count fields after its closing parenthesis.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // fields[0] is field 3 (state): utime is field 14, stime field 15.
  return (Number(fields[11]) + Number(fields[12])) / ticksPerSecond;
}

/** Resident set size in MiB, from VmRSS in /proc/<pid>/status. */
export function rssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
  return match ? Number(match[1]) / 1024 : Number.NaN;
}

export interface ProcessSample {
  /** CPU time over wall time, in % of one core. */
  cpuPercent: number;
  rssMeanMiB: number;
  rssMaxMiB: number;
}

/** Samples `pid`'s RSS every second until `stop()` answers its CPU % of one core over the span. */
export function sampleProcess(pid: number) {
  const startedAt = performance.now();
  const startCpu = cpuSeconds(pid);
  const rss: number[] = [rssMiB(pid)];
  const timer = setInterval(() => rss.push(rssMiB(pid)), 1000);
  return {
    stop(): ProcessSample {
      clearInterval(timer);
      rss.push(rssMiB(pid));
      const wallSeconds = (performance.now() - startedAt) / 1000;
      return {
        cpuPercent: ((cpuSeconds(pid) - startCpu) / wallSeconds) * 100,
        rssMeanMiB: rss.reduce((sum, value) => sum + value, 0) / rss.length,
        rssMaxMiB: Math.max(...rss),
      };
    },
  };
}

/** CPU seconds used so far by every process, by pid, with its command line. */
function allProcesses(): Map<number, { cpu: number; command: string }> {
  const processes = new Map<number, { cpu: number; command: string }>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const command = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' ').trim();
      processes.set(Number(entry), { cpu: cpuSeconds(Number(entry)), command });
    } catch {
      // Gone meanwhile.
    }
  }
  return processes;
}

/** Busy and total jiffies of all CPUs, from /proc/stat. */
function systemTicks() {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  const total = fields.reduce((sum, value) => sum + value, 0);
  // idle and iowait are fields 4 and 5.
  return { busy: total - fields[3]! - fields[4]!, total };
}

export interface MachineSample {
  /** All CPUs busy, in % of the machine. */
  busyPercent: number;
  /** The processes that used the most CPU, in % of one core, with their command lines (shortened). */
  top: { pid: number; cpuPercent: number; command: string }[];
}

/** Watches the whole machine until `stop()`: how busy it was and which processes kept it so. */
export function sampleMachine(topCount = 6) {
  const startedAt = performance.now();
  const before = allProcesses();
  const ticks = systemTicks();
  return {
    stop(): MachineSample {
      const wallSeconds = (performance.now() - startedAt) / 1000;
      const after = allProcesses();
      const now = systemTicks();
      const top = [...after]
        .map(([pid, { cpu, command }]) => ({
          pid,
          cpuPercent: ((cpu - (before.get(pid)?.cpu ?? 0)) / wallSeconds) * 100,
          command: command.length > 90 ? `${command.slice(0, 87)}...` : command,
        }))
        .sort((a, b) => b.cpuPercent - a.cpuPercent)
        .slice(0, topCount);
      return { busyPercent: ((now.busy - ticks.busy) / Math.max(1, now.total - ticks.total)) * 100, top };
    },
  };
}

/**
 * CPU seconds used so far by `rootPid` and each process below it (threads included), by pid with
 * its command line: what the bench and the stack it started cost, whatever else the machine runs.
 */
export function treeCpu(rootPid = process.pid): Map<number, { cpu: number; command: string }> {
  const all = allProcesses();
  const parents = new Map<number, number>();
  for (const pid of all.keys()) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      parents.set(pid, Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // Gone meanwhile.
    }
  }
  const inTree = (pid: number): boolean => {
    for (let current: number | undefined = pid; current && current > 1; current = parents.get(current)) {
      if (current === rootPid) return true;
    }
    return false;
  };
  return new Map([...all].filter(([pid]) => inTree(pid)));
}

/** Watches the bench's process tree until `stop()`: its CPU seconds in all, and by process. */
export function sampleTree(rootPid = process.pid) {
  const before = treeCpu(rootPid);
  return {
    stop() {
      const byProcess = [...treeCpu(rootPid)]
        .map(([pid, { cpu, command }]) => ({ pid, cpuSeconds: cpu - (before.get(pid)?.cpu ?? 0), command }))
        .sort((a, b) => b.cpuSeconds - a.cpuSeconds);
      return { cpuSeconds: byProcess.reduce((sum, { cpuSeconds }) => sum + cpuSeconds, 0), byProcess };
    },
  };
}

export interface GroupSample {
  /** CPU time of the group's processes over wall time, in % of one core. */
  cpuPercent: number;
  /** The group's resident memory at the end (summed over its processes), in MiB. */
  rssMiB: number;
  processes: number;
}

/**
 * Watches groups of the processes below `rootPid`, each told by a pattern of its command line,
 * until `stop()`: each group's CPU in % of one core over the span, and its memory at the end.
 */
export function sampleGroups<Name extends string>(groups: Record<Name, RegExp>, rootPid = process.pid) {
  const startedAt = performance.now();
  const tree = sampleTree(rootPid);
  return {
    stop(): Record<Name, GroupSample> {
      const wallSeconds = (performance.now() - startedAt) / 1000;
      const { byProcess } = tree.stop();
      const sample = (pattern: RegExp): GroupSample => {
        const members = byProcess.filter(({ command }) => pattern.test(command));
        const rss = members.map(({ pid }) => {
          try {
            return rssMiB(pid);
          } catch {
            return 0; // Gone meanwhile.
          }
        });
        return {
          cpuPercent: (members.reduce((sum, { cpuSeconds }) => sum + cpuSeconds, 0) / wallSeconds) * 100,
          rssMiB: rss.reduce((sum, value) => sum + (Number.isNaN(value) ? 0 : value), 0),
          processes: members.length,
        };
      };
      const entries = Object.entries(groups) as [Name, RegExp][];
      return Object.fromEntries(entries.map(([name, pattern]) => [name, sample(pattern)])) as Record<Name, GroupSample>;
    },
  };
}

/** The machine's load averages (1, 5 and 15 minutes), as a benchmark prints them beside a figure. */
export const loadLine = () =>
  loadavg()
    .map((value) => value.toFixed(2))
    .join(' ');
