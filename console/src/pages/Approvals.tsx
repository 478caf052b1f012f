import { api } from '../api.ts';
import { Action, Gas, Loading, Table, Time } from '../components.tsx';
import { useLoad, unavailable } from '../load.ts';
import { href } from '../router.ts';
import { may, useSession } from '../session.ts';
import type { Automation, Run } from '../types.ts';

interface Waiting {
  automation: Automation;
  run: Run;
}

/**
 * The runs waiting for an approval: the running runs of each automation whose run shows a
 * pending `approval` (docs/api.md, "Approvals"). The API lists no approvals of its own.
 */
async function loadWaiting(): Promise<Waiting[]> {
  const { automations } = await api<{ automations: Automation[] }>('/automations?limit=100');
  const perAutomation = await Promise.all(
    automations.map(async (automation) => {
      const { runs } = await api<{ runs: Run[] }>(`/automations/${automation.id}/runs?status=running&limit=100`);
      return runs.filter((run) => run.approval?.status === 'pending').map((run) => ({ automation, run }));
    }),
  );
  return perAutomation.flat();
}

export function ApprovalsPage() {
  const session = useSession();
  const { loaded, reload } = useLoad(loadWaiting, [], 5_000);
  const decides = may(session, 'approvals:write');
  if (unavailable(loaded)) return <p>This API has no approvals.</p>;
  return (
    <section>
      <h1>Approvals waiting</h1>
      <Loading loaded={loaded}>
        {(waiting) =>
          waiting.length === 0 ? (
            <p>No run is waiting for an approval.</p>
          ) : (
            <Table label="Runs waiting for an approval">
              <thead>
                <tr>
                  <th scope="col">Automation</th>
                  <th scope="col">Run</th>
                  <th scope="col">Fees</th>
                  <th scope="col">Deadline</th>
                  {decides && <th scope="col">Decide</th>}
                </tr>
              </thead>
              <tbody>
                {waiting.map(({ automation, run }) => {
                  const path = `/automations/${automation.id}/runs/${run.id}`;
                  const decide = (verdict: 'approve' | 'reject') => async () => {
                    await api(`${path}/${verdict}`, { method: 'POST', body: {} });
                    await reload();
                  };
                  return (
                    <tr key={run.id}>
                      <td>{automation.name}</td>
                      <td>
                        <a href={href.run(automation.id, run.id)}>{run.id}</a>
                      </td>
                      <td>
                        {Object.entries(run.approval?.fees ?? {}).map(([name, value]) => (
                          <span key={name}>
                            {name} <Gas fractions={value} />{' '}
                          </span>
                        ))}
                      </td>
                      <td>
                        <Time iso={run.approval?.deadline} />
                      </td>
                      {decides && (
                        <td>
                          <Action label="Approve" run={decide('approve')} />{' '}
                          <Action label="Reject" variant="secondary" run={decide('reject')} />
                        </td>
                      )}
                    </tr>
                  );
                })}
              </tbody>
            </Table>
          )
        }
      </Loading>
    </section>
  );
}
