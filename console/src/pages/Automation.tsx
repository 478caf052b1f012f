import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import { Action, Gas, Hash, Loading, Status, Table, Time, TxHash } from '../components.tsx';
import { triggerInWords } from '../format.ts';
import { useLoad } from '../load.ts';
import { href } from '../router.ts';
import { may, useSession } from '../session.ts';
import type { Automation, Replay, Run } from '../types.ts';

/** How often the run list is read again: a new run shows within this, without reloading. */
export const runsPollMs = 2_000;

export function AutomationPage({ id }: { id: string }) {
  const session = useSession();
  const automation = useLoad(() => api<Automation>(`/automations/${id}`), [id], 10_000);
  const runs = useLoad(() => api<{ runs: Run[] }>(`/automations/${id}/runs?limit=50`), [id], runsPollMs);
  const operates = may(session, 'automations:operate');
  const refresh = () => Promise.all([automation.reload(), runs.reload()]);
  return (
    <section>
      <nav aria-label="Breadcrumb">
        <ul>
          <li>
            <a href={href.automations()}>Automations</a>
          </li>
        </ul>
      </nav>
      <Loading loaded={automation.loaded}>
        {(shown) => (
          <>
            <h1>{shown.name}</h1>
            <dl class="facts">
              <dt>Status</dt>
              <dd>
                <Status status={shown.status} /> {shown.details?.message}
              </dd>
              <dt>Trigger</dt>
              <dd>{triggerInWords(shown.trigger)}</dd>
              <dt>Action</dt>
              <dd>{shown.action.type}</dd>
              <dt>Network</dt>
              <dd>{shown.network}</dd>
              <dt>Next fire</dt>
              <dd>
                <Time iso={shown.executionStats?.nextExecution} />
              </dd>
              <dt>Runs</dt>
              <dd>
                {shown.executionStats?.successCount ?? 0} succeeded, {shown.executionStats?.failureCount ?? 0} failed
              </dd>
              {shown.gas && (
                <>
                  <dt>GAS spent today</dt>
                  <dd>
                    <Gas decimal={shown.gas.spentToday} />
                  </dd>
                  <dt>Budget left today</dt>
                  <dd>{shown.gas.leftToday === null ? 'no daily limit' : <Gas decimal={shown.gas.leftToday} />}</dd>
                </>
              )}
            </dl>
            {operates && (
              <div class="actions">
                <Action
                  label="Fire now"
                  run={async () => {
                    await api(`/automations/${id}/trigger`, { method: 'POST', body: {} });
                    await refresh();
                  }}
                />
                <Action
                  label={shown.status === 'active' ? 'Pause' : 'Resume'}
                  variant="secondary"
                  run={async () => {
                    const status = shown.status === 'active' ? 'inactive' : 'active';
                    await api(`/automations/${id}`, { method: 'PATCH', body: { status } });
                    await refresh();
                  }}
                />
              </div>
            )}
            {operates && shown.trigger.type === 'blockchain' && <DryRunReplay id={id} />}
          </>
        )}
      </Loading>
      <h2>Runs</h2>
      <Loading loaded={runs.loaded}>
        {({ runs: list }) =>
          list.length === 0 ? (
            <p>No runs yet: it runs when its trigger fires{operates ? ', or when you fire it now' : ''}.</p>
          ) : (
            <Table label="Runs, newest first">
              <thead>
                <tr>
                  <th scope="col">Run</th>
                  <th scope="col">Status</th>
                  <th scope="col">Started</th>
                  <th scope="col">Fired by</th>
                  <th scope="col">Transaction</th>
                  <th scope="col">Error</th>
                </tr>
              </thead>
              <tbody>
                {list.map((run) => (
                  <tr key={run.id} data-run={run.id}>
                    <td>
                      <a href={href.run(id, run.id)}>{run.id}</a>
                      {run.retryOf && <small> (retry of {run.retryOf})</small>}
                    </td>
                    <td>
                      <Status status={run.status} />
                    </td>
                    <td>
                      <Time iso={run.startedAt} />
                    </td>
                    <td>{run.trigger.type}</td>
                    <td>{run.txHash ? <TxHash value={run.txHash} /> : '—'}</td>
                    <td>{run.error ? `${run.error.name}: ${run.error.message}` : ''}</td>
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

/** A dry-run replay: which past blocks would have fired the trigger, running nothing. */
function DryRunReplay({ id }: { id: string }) {
  const [fromBlock, setFrom] = useState('');
  const [toBlock, setTo] = useState('');
  const [replay, setReplay] = useState<Replay | null>(null);
  const start = async () => {
    const started = await api<Replay>(`/automations/${id}/replays`, {
      method: 'POST',
      body: { fromBlock: Number(fromBlock), toBlock: Number(toBlock), dryRun: true },
    });
    setReplay(started);
    let current = started;
    while (current.status === 'running') {
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      current = await api<Replay>(`/automations/${id}/replays/${started.id}`);
      setReplay(current);
    }
  };
  return (
    <details>
      <summary>Dry-run replay of past blocks</summary>
      <div class="grid">
        <label>
          From block
          <input inputMode="numeric" value={fromBlock} onInput={(event) => setFrom(event.currentTarget.value)} />
        </label>
        <label>
          To block
          <input inputMode="numeric" value={toBlock} onInput={(event) => setTo(event.currentTarget.value)} />
        </label>
      </div>
      <Action label="Dry-run replay" variant="secondary" run={start} />
      {replay && (
        <p aria-live="polite">
          {replay.status}: {replay.blocksDone} of {replay.blocksTotal} blocks, {replay.matchCount} matches
          {replay.matches?.map((match) => (
            <span key={`${match.blockIndex}-${match.notificationIndex}`}>
              {' '}
              block {match.blockIndex} <Hash value={match.txHash} />
            </span>
          ))}
        </p>
      )}
    </details>
  );
}
