import type { EntityManager } from '@mikro-orm/postgresql';
import { open, seal, type MasterKeys, type Sealed } from '../crypto/envelope.ts';
import { sealContexts } from '../crypto/seal-contexts.ts';
import { ExecutionResult, type Execution } from './execution.entity.ts';
import { executionStatus } from '../shared/outcomes.ts';

/** A completed execution's result, sealed for its row (execution.sql.ts writes it). */
export function sealResult(masters: MasterKeys, executionId: string, result: unknown): Sealed {
  return seal(JSON.stringify(result), sealContexts.executionResult(executionId), masters);
}

/** The stored result of a completed execution; undefined for any other. */
export async function openResult(em: EntityManager, masters: MasterKeys, execution: Execution): Promise<unknown> {
  if (execution.status !== executionStatus.completed) return undefined;
  return openStoredResult(em, masters, execution.id);
}

/** The stored result of the completed execution `executionId`; null when none is stored. */
export async function openStoredResult(em: EntityManager, masters: MasterKeys, executionId: string): Promise<unknown> {
  const sealed = await em.findOne(ExecutionResult, { execution: executionId });
  return sealed ? (JSON.parse(open(sealed, sealContexts.executionResult(executionId), masters)) as unknown) : null;
}
