/**
 * What a user of the client writes, compiled under `tsc --strict` by
 * test/e2e/typescript-client.test.ts: list options as numbers, the resources by name, errors
 * narrowed by their code. A `@ts-expect-error` marks what the document does not yet allow
 * (issue 33 item 1); each fails the compile once the document allows it, to be removed then.
 */
/* eslint-disable @typescript-eslint/no-redundant-type-constituents, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-member-access --
   the resources' names resolve to nothing until the document names them: goes with the first @ts-expect-error */
import {
  createNeoflowClient,
  getAutomations,
  getFunctions,
  getFunctionsById,
  getFunctionsByIdExecutions,
  isErrorOf,
  paginate,
  type ErrorOf,
} from '../src/index.ts';
// @ts-expect-error the document names no component schemas yet
import type { Automation, Execution, Function } from '../src/index.ts';

const client = createNeoflowClient({ baseUrl: 'http://127.0.0.1:8080', apiKey: 'nf_…' });

// @ts-expect-error `limit` is typed a string until the document declares integer query parameters
const { data: page } = await getFunctions({ client, query: { limit: 10 } });
const first: Function | undefined = page.data[0];
if (first !== undefined) {
  const executions: Execution[] = [];
  for await (const execution of paginate(getFunctionsByIdExecutions, { client, path: { id: first.id } }))
    executions.push(execution);
  console.log(first.name, executions.length);
}

const automations: Automation[] = [];
for await (const automation of paginate(getAutomations, { client })) automations.push(automation);

/** True when `Code` is a union of literal codes, false when it is any string. */
type NarrowsByCode<Code> = string extends Code ? false : true;

try {
  await getFunctionsById({ client, path: { id: 'func_missing' } });
} catch (error) {
  if (!isErrorOf(error, getFunctionsById)) throw error;
  // @ts-expect-error `code` is any string until the document declares each area's codes as an enum
  const narrows: NarrowsByCode<ErrorOf<typeof getFunctionsById>['code']> = true;
  console.log(narrows, error.status, error.code, error.details, error.requestId);
}
