import { Fragment } from 'preact';
import { api } from '../api.ts';
import { Action, Gas, Hash, Loading, Status, Table, Time, TxHash } from '../components.tsx';
import { useLoad } from '../load.ts';
import { href } from '../router.ts';
import { may, useSession } from '../session.ts';
import type { Approval, Run } from '../types.ts';

/** What fired a run, with the event's values: every field of its trigger but the type. */
function FiredBy({ trigger }: { trigger: Run['trigger'] }) {
  const { type, ...fields } = trigger;
  return (
    <>
      <p>
        <strong>{type}</strong>
      </p>
      <dl class="facts">
        {Object.entries(fields).map(([name, value]) => (
          <Fragment key={name}>
            <dt>{name}</dt>
            <dd>
              {typeof value === 'string' && /^0x[0-9a-f]{40,64}$/.test(value) ? (
                <Hash value={value} />
              ) : typeof value === 'string' && /^\d{4}-\d\d-\d\dT/.test(value) ? (
                <Time iso={value} />
              ) : (
                <code>{JSON.stringify(value)}</code>
              )}
            </dd>
          </Fragment>
        ))}
      </dl>
    </>
  );
}

function ApprovalPanel({ approval, path, onChange }: { approval: Approval; path: string; onChange: () => unknown }) {
  const session = useSession();
  const decide = (verdict: 'approve' | 'reject') => async () => {
    await api(`${path}/${verdict}`, { method: 'POST', body: {} });
    await onChange();
  };
  return (
    <article aria-label="Approval">
      <h2>Approval</h2>
      <p>
        <Status status={approval.status} />{' '}
        {approval.required !== undefined && `${approval.approvals?.length ?? 0} of ${approval.required} approvals`}
        {approval.deadline && (
          <>
            {' '}
            · decide before <Time iso={approval.deadline} />
          </>
        )}
      </p>
      {approval.fees && (
        <p>
          Fees:{' '}
          {Object.entries(approval.fees).map(([name, value]) => (
            <span key={name}>
              {name} <Gas fractions={value} />{' '}
            </span>
          ))}
        </p>
      )}
      {approval.status === 'pending' && may(session, 'approvals:write') && (
        <div class="actions">
          <Action label="Approve" run={decide('approve')} />
          <Action label="Reject" variant="secondary" run={decide('reject')} />
        </div>
      )}
    </article>
  );
}

export function RunPage({ id, runId }: { id: string; runId: string }) {
  const session = useSession();
  const path = `/automations/${id}/runs/${runId}`;
  const { loaded, reload } = useLoad(() => api<Run>(path), [path], 3_000);
  const retry = async () => {
    await api(`${path}/retry`, { method: 'POST', body: {} });
    location.hash = href.automation(id);
  };
  return (
    <section>
      <nav aria-label="Breadcrumb">
        <ul>
          <li>
            <a href={href.automations()}>Automations</a>
          </li>
          <li>
            <a href={href.automation(id)}>Its runs</a>
          </li>
        </ul>
      </nav>
      <Loading loaded={loaded}>
        {(run) => (
          <>
            <h1>
              Run <code>{run.id}</code>
            </h1>
            <dl class="facts">
              <dt>Status</dt>
              <dd>
                <Status status={run.status} />
              </dd>
              <dt>Started</dt>
              <dd>
                <Time iso={run.startedAt} />
              </dd>
              <dt>Ended</dt>
              <dd>
                <Time iso={run.completedAt} />
                {run.duration !== null && ` (${run.duration} ms)`}
              </dd>
              <dt>Network</dt>
              <dd>{run.network}</dd>
              {run.retryOf && (
                <>
                  <dt>Retry of</dt>
                  <dd>
                    <a href={href.run(id, run.retryOf)}>{run.retryOf}</a>
                  </dd>
                </>
              )}
              {run.executionId && (
                <>
                  <dt>Execution</dt>
                  <dd>
                    <code>{run.executionId}</code>
                  </dd>
                </>
              )}
              {run.skipped && (
                <>
                  <dt>Sent nothing</dt>
                  <dd>{run.skipped}</dd>
                </>
              )}
            </dl>
            {run.error && (
              <article class="run-error" aria-label="Error">
                <h2>Error</h2>
                <p>
                  <strong class="error-name">{run.error.name}</strong>:{' '}
                  <span class="error-message">{run.error.message}</span>
                </p>
              </article>
            )}
            {run.status === 'failure' && may(session, 'automations:operate') && (
              <div class="actions">
                <Action label="Retry" run={retry} />
              </div>
            )}
            {run.approval && <ApprovalPanel approval={run.approval} path={path} onChange={reload} />}
            <h2>Fired by</h2>
            <FiredBy trigger={run.trigger} />
            {(run.txHash !== undefined || run.vmState !== undefined) && (
              <>
                <h2>Transaction</h2>
                <dl class="facts">
                  <dt>Hash</dt>
                  <dd class="tx-hash">
                    <TxHash value={run.txHash} />
                  </dd>
                  <dt>VM state</dt>
                  <dd>{run.vmState ?? '—'}</dd>
                  <dt>GAS consumed</dt>
                  <dd>
                    <Gas fractions={run.gasConsumed} />
                  </dd>
                  <dt>System fee</dt>
                  <dd class="system-fee">
                    <Gas fractions={run.systemFee} />
                  </dd>
                  <dt>Network fee</dt>
                  <dd class="network-fee">
                    <Gas fractions={run.networkFee} />
                  </dd>
                  <dt>Valid until block</dt>
                  <dd>{run.validUntilBlock ?? '—'}</dd>
                  {run.relayError && (
                    <>
                      <dt>Relay</dt>
                      <dd>{run.relayError}</dd>
                    </>
                  )}
                </dl>
              </>
            )}
            {run.calls && run.calls.length > 0 && (
              <>
                <h2>Decided calls</h2>
                <Table label="Calls">
                  <thead>
                    <tr>
                      <th scope="col">Contract</th>
                      <th scope="col">Operation</th>
                      <th scope="col">Arguments</th>
                    </tr>
                  </thead>
                  <tbody>
                    {run.calls.map((call, index) => (
                      <tr key={index}>
                        <td>
                          <Hash value={call.scriptHash} />
                        </td>
                        <td>{call.operation}</td>
                        <td>
                          <code>{JSON.stringify(call.args.map((arg) => arg.value))}</code>
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </Table>
              </>
            )}
            {run.notifications && run.notifications.length > 0 && (
              <>
                <h2>Notifications sent</h2>
                <ul>
                  {run.notifications.map((sent) => (
                    <li key={sent.id}>
                      {sent.event} to {sent.channel}: {sent.status} after {sent.attempts} attempt(s)
                    </li>
                  ))}
                </ul>
              </>
            )}
          </>
        )}
      </Loading>
    </section>
  );
}
