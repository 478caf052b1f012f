import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Execution, ExecutionResult } from '../../src/functions/execution.entity.ts';
import { newExecution } from '../../src/functions/execution-record.ts';
import { FunctionDef } from '../../src/functions/function.entity.ts';
import { sealResult } from '../../src/functions/result-seal.ts';
import { storeEnd, type End } from '../../src/functions/execution.sql.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { storeFunction } from '../support/function-rows.ts';
import { issueKey, testMasters } from '../support/keys.ts';

let db: TestDatabase;
let fn: FunctionDef;
beforeAll(async () => {
  db = await createTestDatabase();
  const { accountId } = await issueKey(db.orm);
  fn = await storeFunction(db.orm, accountId, 'ends');
});
afterAll(async () => {
  await db?.drop();
});

const ended = (status: 'completed' | 'failed'): End => ({
  status,
  secretsRead: [],
  logs: [{ level: 'info', message: status, timestamp: new Date().toISOString() }],
  error: status === 'failed' ? { name: 'Error', message: 'second', stack: '' } : null,
  completedAt: new Date(),
  duration: 5,
});

describe('storing an execution end', () => {
  it('ends a running execution once: a second process that ran it too is told it came second', async () => {
    const em = db.orm.em.fork();
    const loaded = await em.findOneOrFail(FunctionDef, { id: fn.id });
    const execution = newExecution(em, loaded, loaded.account.id, {}, { type: 'api' });
    await em.insert(execution);
    const sealed = sealResult(testMasters, execution.id, { first: true });
    expect(await storeEnd(db.orm.em.fork(), execution.id, ended('completed'), sealed)).toBe(true);
    expect(await storeEnd(db.orm.em.fork(), execution.id, ended('failed'))).toBe(false);
    expect(await storeEnd(db.orm.em.fork(), execution.id, ended('completed'), sealed)).toBe(false);

    const stored = await db.orm.em.fork().findOneOrFail(Execution, { id: execution.id });
    expect(stored).toMatchObject({ status: 'completed', error: null, duration: 5 });
    expect(stored.logs).toEqual([expect.objectContaining({ message: 'completed' })]);
    expect(await db.orm.em.fork().count(ExecutionResult, { execution: execution.id })).toBe(1);
  });

  it('stores nothing for an execution deleted with its function', async () => {
    expect(await storeEnd(db.orm.em.fork(), 'exec_gone', ended('failed'))).toBe(false);
  });
});
