import type { EntityManager } from '@mikro-orm/postgresql';
import { open, seal, type MasterKeys } from '../secrets/envelope.ts';
import { ExecutionResult, type Execution } from './execution.entity.ts';

const context = (executionId: string) => `execution:${executionId}`;

export function sealResult(em: EntityManager, masters: MasterKeys, execution: Execution, result: unknown) {
  em.create(ExecutionResult, { execution, ...seal(JSON.stringify(result), context(execution.id), masters) });
}

/** The stored result of a completed execution; undefined for any other. */
export async function openResult(em: EntityManager, masters: MasterKeys, execution: Execution): Promise<unknown> {
  if (execution.status !== 'completed') return undefined;
  const sealed = await em.findOne(ExecutionResult, { execution: execution.id });
  return sealed ? (JSON.parse(open(sealed, context(execution.id), masters)) as unknown) : null;
}
