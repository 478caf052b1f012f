import { readFile, stat, writeFile } from 'node:fs/promises';
import { MemoryStore } from '../functions/storage/memory-store.ts';
import { RunStorage } from '../functions/storage/run-storage.ts';
import { keyProblem, storageLimits } from '../functions/storage/storage-limits.ts';
import { sandboxError } from '../sandbox/errors.ts';
import type { SandboxOutcome } from '../sandbox/types.ts';
import { executionStatus } from '../shared/outcomes.ts';

/** A store file is at most the function's quota of values, with room for its keys and layout. */
const maxFileBytes = 2 * storageLimits.bytes;

/** `context.storage` of `neoflow fn run`, and what becomes of the run's writes. */
interface LocalStorage {
  storage: RunStorage;
  /** Commits the writes of a completed run as the service would (to the file, if one was named). */
  finish(outcome: SandboxOutcome): Promise<SandboxOutcome>;
}

/**
 * With `--storage <file.json>`, a store seeded from the file (a JSON object of key to value; a
 * missing file is an empty store) and written back when the run completes with writes, so
 * successive runs go on from each other; without it, an empty store whose writes are dropped.
 */
export async function localStorage(file: string | undefined): Promise<LocalStorage> {
  const store = new MemoryStore(file === undefined ? {} : await readStoreFile(file));
  const storage = new RunStorage(store.reader());
  return {
    storage,
    finish: async (outcome) => {
      const changes = storage.changes();
      if (outcome.status !== executionStatus.completed || !changes) return outcome;
      const refusal = store.commit(changes);
      if (refusal) {
        const { logs, secretsRead, durationMs } = outcome;
        return {
          status: executionStatus.failed,
          error: sandboxError(refusal.name, refusal.message),
          logs,
          secretsRead,
          durationMs,
        };
      }
      if (file !== undefined) await writeFile(file, `${JSON.stringify(store.values(), null, 2)}\n`);
      return outcome;
    },
  };
}

async function readStoreFile(file: string): Promise<Record<string, unknown>> {
  const size = await stat(file).then(
    (stats) => stats.size,
    (error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return undefined;
      throw error;
    },
  );
  if (size === undefined) return {};
  if (size > maxFileBytes) throw new Error(`--storage ${file} is over ${maxFileBytes} bytes`);
  let values: unknown;
  try {
    values = JSON.parse(await readFile(file, 'utf8'));
  } catch {
    throw new Error(`--storage ${file} must hold JSON: an object of key to value`);
  }
  if (typeof values !== 'object' || values === null || Array.isArray(values))
    throw new Error(`--storage ${file} must hold a JSON object of key to value`);
  for (const [key, value] of Object.entries(values)) {
    const problem = keyProblem(key) ?? valueProblem(value);
    if (problem) throw new Error(`--storage ${file}: ${JSON.stringify(key.slice(0, 300))}: ${problem}`);
  }
  return values as Record<string, unknown>;
}

function valueProblem(value: unknown): string | undefined {
  const bytes = Buffer.byteLength(JSON.stringify(value));
  return bytes > storageLimits.valueBytes ? `a value is at most ${storageLimits.valueBytes} bytes as JSON` : undefined;
}
