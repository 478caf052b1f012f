import { api, data } from '../api.ts';
import { Empty, Loading, Status, Table, Time } from '../components.tsx';
import { useLoad } from '../load.ts';
import { href } from '../router.ts';
import type { ExecutionDetails, ExecutionSummary, FunctionDetails, FunctionSummary } from '../types.ts';

const deployCommand = `neoflow fn deploy greeter.js --name greeter   # docs/functions.md
# or, with curl:
curl -X POST -H "X-API-Key: $KEY" -H 'Content-Type: application/json' \\
  http://127.0.0.1:8080/v1/functions -d '{"name":"greeter","runtime":"node18",
  "code":"module.exports = async (context) => ({ hello: context.params.name })"}'`;

export function FunctionsPage() {
  const { loaded } = useLoad(async () => data(await api<{ data: FunctionSummary[] }>('/functions?limit=100')), []);
  return (
    <section>
      <h1>Functions</h1>
      <Loading loaded={loaded}>
        {(functions) =>
          functions.length === 0 ? (
            <Empty title="No functions yet" command={deployCommand}>
              A function is JavaScript or TypeScript that automations (or your calls) run in a sandbox. Deploy the first
              one:
            </Empty>
          ) : (
            <Table label="Functions">
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Runtime</th>
                  <th scope="col">Last run</th>
                  <th scope="col">Changed</th>
                </tr>
              </thead>
              <tbody>
                {functions.map((fn) => (
                  <tr key={fn.id}>
                    <td>
                      <a href={href.function(fn.id)}>{fn.name}</a>
                    </td>
                    <td>{fn.runtime}</td>
                    <td>
                      <Time iso={fn.lastInvocation} />
                    </td>
                    <td>
                      <Time iso={fn.updatedAt} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </Table>
          )
        }
      </Loading>
    </section>
  );
}

export function FunctionPage({ id }: { id: string }) {
  const fn = useLoad(async () => data(await api<{ data: FunctionDetails }>(`/functions/${id}`)), [id]);
  const executions = useLoad(
    async () => data(await api<{ data: ExecutionSummary[] }>(`/functions/${id}/executions?limit=50`)),
    [id],
    5_000,
  );
  return (
    <section>
      <nav aria-label="Breadcrumb">
        <ul>
          <li>
            <a href={href.functions()}>Functions</a>
          </li>
        </ul>
      </nav>
      <Loading loaded={fn.loaded}>
        {(shown) => (
          <>
            <h1>{shown.name}</h1>
            <dl class="facts">
              <dt>Version</dt>
              <dd>{shown.version}</dd>
              <dt>Runtime</dt>
              <dd>{shown.runtime}</dd>
              <dt>Secrets it reads</dt>
              <dd>{shown.secrets.length ? shown.secrets.join(', ') : 'none'}</dd>
              <dt>Runs</dt>
              <dd>
                {shown.stats.invocations.total} ({shown.stats.invocations.failed} failed,{' '}
                {shown.stats.invocations.last24Hours} in the last 24 hours)
              </dd>
            </dl>
          </>
        )}
      </Loading>
      <h2>Executions</h2>
      <Loading loaded={executions.loaded}>
        {(list) =>
          list.length === 0 ? (
            <p>No executions yet.</p>
          ) : (
            <Table label="Executions, newest first">
              <thead>
                <tr>
                  <th scope="col">Execution</th>
                  <th scope="col">Status</th>
                  <th scope="col">Version</th>
                  <th scope="col">Started</th>
                  <th scope="col">Duration</th>
                </tr>
              </thead>
              <tbody>
                {list.map((execution) => (
                  <tr key={execution.id}>
                    <td>
                      <a href={href.execution(id, execution.id)}>{execution.id}</a>
                    </td>
                    <td>
                      <Status status={execution.status} />
                    </td>
                    <td>{execution.functionVersion ?? '—'}</td>
                    <td>
                      <Time iso={execution.startedAt} />
                    </td>
                    <td>{execution.duration === undefined ? '—' : `${execution.duration} ms`}</td>
                  </tr>
                ))}
              </tbody>
            </Table>
          )
        }
      </Loading>
    </section>
  );
}

/** One execution: its result or error, and its logs as stored (secrets already masked by the API). */
export function ExecutionPage({ id, executionId }: { id: string; executionId: string }) {
  const { loaded } = useLoad(
    async () => data(await api<{ data: ExecutionDetails }>(`/functions/${id}/executions/${executionId}`)),
    [id, executionId],
  );
  return (
    <section>
      <nav aria-label="Breadcrumb">
        <ul>
          <li>
            <a href={href.functions()}>Functions</a>
          </li>
          <li>
            <a href={href.function(id)}>Its executions</a>
          </li>
        </ul>
      </nav>
      <Loading loaded={loaded}>
        {(execution) => (
          <>
            <h1>
              Execution <code>{execution.id}</code>
            </h1>
            <dl class="facts">
              <dt>Status</dt>
              <dd>
                <Status status={execution.status} />
              </dd>
              <dt>Version</dt>
              <dd>{execution.functionVersion ?? '—'}</dd>
              <dt>Started</dt>
              <dd>
                <Time iso={execution.startedAt} />
              </dd>
              <dt>Started by</dt>
              <dd>{execution.trigger.type}</dd>
              <dt>Secrets read</dt>
              <dd>{execution.secretsRead.length ? execution.secretsRead.join(', ') : 'none'}</dd>
            </dl>
            {execution.error && (
              <article class="run-error" aria-label="Error">
                <h2>Error</h2>
                <p>
                  <strong>{execution.error.name}</strong>: {execution.error.message}
                </p>
              </article>
            )}
            {'result' in execution && (
              <>
                <h2>Result</h2>
                <pre>
                  <code>{JSON.stringify(execution.result, null, 2)}</code>
                </pre>
              </>
            )}
            <h2>Logs</h2>
            {execution.logs.length === 0 ? (
              <p>No logs.</p>
            ) : (
              <pre>
                <code>
                  {execution.logs.map((line) => `${line.timestamp} ${line.level} ${line.message}`).join('\n')}
                </code>
              </pre>
            )}
          </>
        )}
      </Loading>
    </section>
  );
}
