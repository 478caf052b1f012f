import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Account } from '../auth/account.entity.ts';
import { newId } from '../ids.ts';
import { FunctionDef } from './function.entity.ts';

export type ExecutionStatus = 'running' | 'completed' | 'failed';

/** One invocation of a function: the queryable history; Temporal owns the running state. */
export const Execution = defineEntity({
  name: 'Execution',
  tableName: 'executions',
  properties: {
    id: p
      .string()
      .primary()
      .onCreate(() => newId('exec')),
    function: () => p.manyToOne(FunctionDef).deleteRule('cascade'),
    account: () => p.manyToOne(Account).deleteRule('cascade'),
    status: p.string().length(16).$type<ExecutionStatus>(),
    params: p.json<Record<string, unknown>>(),
    result: p.json<unknown>().nullable(),
    error: p.json<{ name: string; message: string; stack: string }>().nullable(),
    logs: p.json<{ level: string; message: string; timestamp: string }[]>(),
    trigger: p.json<Record<string, unknown>>(),
    startedAt: p.datetime(),
    completedAt: p.datetime().nullable(),
    duration: p.integer().nullable(),
  },
});

export type Execution = InferEntity<typeof Execution>;
