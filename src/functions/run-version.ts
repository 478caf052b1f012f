import type { EntityManager } from '@mikro-orm/postgresql';
import type { Execution } from './execution.entity.ts';
import { FunctionVersion } from './function-version.entity.ts';
import { storedSettings, type Versioned } from './versioned-fields.ts';

/**
 * What an execution runs: the version its row names, read here, in the activity (its workflow
 * carries only the execution's id). The function's row holds its current version, so an execution
 * of that one (nearly all) needs no read of its own. An execution recorded before versions were
 * kept runs the current one.
 */
export function versionToRun(em: EntityManager, execution: Execution): Promise<Versioned> {
  return versionOf(em, execution.function, execution.functionVersion ?? execution.function.version);
}

/** Version `wanted` of `fn`: the function's row for its current one, else the stored version. */
export async function versionOf(em: EntityManager, fn: Execution['function'], wanted: number): Promise<Versioned> {
  if (wanted === fn.version) return fn;
  // Versions go only with their function, and its executions with it: this one exists.
  const version = await em.findOneOrFail(FunctionVersion, { function: fn.id, version: wanted }, { populate: ['code'] });
  return { ...storedSettings(version.settings), code: version.code };
}

/** The timeout of the version an execution runs, reading no code. */
export async function timeoutToRun(
  em: EntityManager,
  execution: Pick<Execution, 'functionVersion'> & {
    function: Pick<Execution['function'], 'id' | 'version' | 'timeout'>;
  },
): Promise<number> {
  const fn = execution.function;
  const wanted = execution.functionVersion ?? fn.version;
  if (wanted === fn.version) return fn.timeout;
  const version = await em.findOneOrFail(FunctionVersion, { function: fn.id, version: wanted });
  return version.settings.timeout;
}
