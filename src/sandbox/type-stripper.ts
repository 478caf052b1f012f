import { Worker } from 'node:worker_threads';
import type { StrippedCode } from './typescript.ts';

/** Why a code was not stripped, beyond a syntax error of its own. */
type StripRefusal =
  /** It was not stripped within the deadline: its thread was stopped. */
  | { ok: false; refused: 'deadline'; message: string }
  /** Node's stripper failed on it otherwise (deep nesting exhausts its stack): its thread was replaced. */
  | { ok: false; refused: 'crashed'; message: string }
  /** Its lane already has as many codes waiting as it may: nothing was tried. */
  | { ok: false; refused: 'busy'; message: string };

export type StripOutcome = StrippedCode | StripRefusal;

interface StripperLimits {
  /** Threads stripping at once, each one code at a time. */
  threads: number;
  /** The longest one code may take in its thread; a stripper is linear (~0.15 s for 256 KiB). */
  deadlineMs: number;
  /** Codes of one lane waiting for a thread, beyond the one it has stripping. */
  queuedPerLane: number;
}

interface Job {
  code: string;
  lane: string;
  done(outcome: StripOutcome): void;
}

interface Thread {
  worker: Worker;
  job?: { id: number; job: Job; timer: NodeJS.Timeout };
}

const threadEntry = new URL('./strip-thread.ts', import.meta.url);

/**
 * Strips TypeScript off the event loop (Node's stripper is synchronous: ~0.15 s for 256 KiB, and
 * one deep nesting can leave it unusable for the rest of its process), in threads of its own,
 * each code under a deadline. Each lane (an account saving, a function running) has at most one
 * code stripping, and the lanes that wait are served in turn: one lane's codes never hold another
 * back by more than one code each.
 */
export class TypeStripper {
  readonly #limits: StripperLimits;
  readonly #threads: (Thread | undefined)[];
  /** Lanes with codes waiting, in the order they are served next. */
  readonly #waiting = new Map<string, Job[]>();
  readonly #stripping = new Set<string>();
  #nextId = 0;

  constructor(limits: StripperLimits) {
    this.#limits = limits;
    this.#threads = Array.from({ length: limits.threads }, () => undefined);
  }

  /** The code stripped of its types, its syntax error, or why it was not stripped. */
  strip(code: string, lane: string): Promise<StripOutcome> {
    const queue = this.#waiting.get(lane) ?? [];
    if (queue.length >= this.#limits.queuedPerLane) {
      return Promise.resolve({
        ok: false,
        refused: 'busy',
        message: 'Too many codes of this account wait to be stripped.',
      });
    }
    return new Promise((done) => {
      queue.push({ code, lane, done });
      this.#waiting.set(lane, queue);
      this.#serve();
    });
  }

  /** Hands waiting codes to free threads, one lane after another. */
  #serve() {
    for (const [lane, queue] of this.#waiting) {
      if (this.#stripping.has(lane)) continue;
      const index = this.#threads.findIndex((thread) => !thread?.job);
      if (index < 0) return;
      const job = queue.shift()!;
      // Served: to the back of the line, behind the lanes that still wait.
      this.#waiting.delete(lane);
      if (queue.length > 0) this.#waiting.set(lane, queue);
      this.#run(index, job);
    }
  }

  #run(index: number, job: Job) {
    const thread = this.#threads[index] ?? this.#start(index);
    const id = ++this.#nextId;
    const timer = setTimeout(() => {
      const seconds = this.#limits.deadlineMs / 1000;
      this.#finish(index, {
        ok: false,
        refused: 'deadline',
        message: `It was not stripped of its types within ${seconds} s.`,
      });
      this.#stop(index);
    }, this.#limits.deadlineMs);
    thread.job = { id, job, timer };
    // Held open while it strips (a CLI's run waits on it), not while it idles.
    thread.worker.ref();
    this.#stripping.add(job.lane);
    thread.worker.postMessage({ id, code: job.code });
  }

  #start(index: number): Thread {
    const worker = new Worker(threadEntry);
    const thread: Thread = { worker };
    worker.on('message', (reply: { id: number; stripped?: StrippedCode; broken?: string }) => {
      if (thread.job?.id !== reply.id) return;
      this.#finish(index, reply.stripped ?? { ok: false, refused: 'crashed', message: reply.broken ?? 'unknown' });
      // The thread ends itself after a crash: the next code starts a fresh one.
      if (reply.broken !== undefined) this.#threads[index] = undefined;
    });
    const lost = (reason: string) => {
      if (this.#threads[index] !== thread) return;
      this.#finish(index, { ok: false, refused: 'crashed', message: reason });
      this.#threads[index] = undefined;
      this.#serve();
    };
    worker.on('error', (error: Error) => lost(error.message));
    worker.on('exit', () => lost('The stripping thread ended.'));
    this.#threads[index] = thread;
    return thread;
  }

  /** Answers the thread's code and frees the thread for the next. */
  #finish(index: number, outcome: StripOutcome) {
    const thread = this.#threads[index];
    const running = thread?.job;
    if (!thread || !running) return;
    clearTimeout(running.timer);
    thread.job = undefined;
    thread.worker.unref();
    const { lane } = running.job;
    this.#stripping.delete(lane);
    // Its next code waits behind the lanes that waited while this one stripped.
    const queue = this.#waiting.get(lane);
    if (queue) {
      this.#waiting.delete(lane);
      this.#waiting.set(lane, queue);
    }
    running.job.done(outcome);
    queueMicrotask(() => this.#serve());
  }

  #stop(index: number) {
    const thread = this.#threads[index];
    this.#threads[index] = undefined;
    void thread?.worker.terminate();
    this.#serve();
  }
}

/** Two threads, a code given 5 s: ~30 times what 256 KiB of the slowest code found takes. */
export const typeStripper = new TypeStripper({ threads: 2, deadlineMs: 5_000, queuedPerLane: 4 });
