/**
 * What a user of the client writes, compiled under `tsc --strict` by
 * test/e2e/typescript-client.test.ts: list options as numbers, the resources by name, errors
 * narrowed by their code.
 */
import {
  createNeoflowClient,
  getAutomations,
  getFunctions,
  getFunctionsById,
  getFunctionsByIdExecutions,
  getFunctionsByIdExecutionsByExecutionId,
  isErrorOf,
  paginate,
  type ErrorOf,
} from '../src/index.ts';
import type { Automation, Execution, ExecutionSummary, Function, FunctionSummary } from '../src/index.ts';

const client = createNeoflowClient({ baseUrl: 'http://127.0.0.1:8080', apiKey: 'nf_…' });

const { data: page } = await getFunctions({ client, query: { limit: 10 } });
const first: FunctionSummary | undefined = page.data[0];
if (first !== undefined) {
  const { data: one } = await getFunctionsById({ client, path: { id: first.id }, query: { include_code: true } });
  const fn: Function = one.data;
  const executions: ExecutionSummary[] = [];
  for await (const execution of paginate(getFunctionsByIdExecutions, { client, path: { id: fn.id } }))
    executions.push(execution);
  if (executions[0] !== undefined) {
    const { data: ran } = await getFunctionsByIdExecutionsByExecutionId({
      client,
      path: { id: fn.id, executionId: executions[0].id },
    });
    const execution: Execution = ran.data;
    console.log(execution.logs.length);
  }
  console.log(fn.name, fn.code, executions.length);
}

const automations: Automation[] = [];
for await (const automation of paginate(getAutomations, { client })) automations.push(automation);

/** True when `Code` is a union of literal codes, false when it is any string. */
type NarrowsByCode<Code> = string extends Code ? false : true;

try {
  await getFunctionsById({ client, path: { id: 'func_missing' } });
} catch (error) {
  if (!isErrorOf(error, getFunctionsById)) throw error;
  const narrows: NarrowsByCode<ErrorOf<typeof getFunctionsById>['code']> = true;
  console.log(narrows, error.status, error.code, error.details, error.requestId);
}
