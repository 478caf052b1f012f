import { api } from '../api.ts';
import { Empty, Gas, Loading, Status, Table, Time } from '../components.tsx';
import { failuresInRow, triggerInWords } from '../format.ts';
import { useLoad } from '../load.ts';
import { href } from '../router.ts';
import type { Automation, Pagination, Run } from '../types.ts';

interface Row {
  automation: Automation;
  failuresInRow: number;
}

/** Runs read to count failures in a row: more than this shows as "20+". */
const streakWindow = 20;

/**
 * Each automation with its figures: the list answers none, so each is read with its stats and
 * GAS, and its latest runs for the failures in a row (a page is at most 20 automations).
 */
async function loadRows(): Promise<{ rows: Row[]; pagination: Pagination }> {
  const page = await api<{ automations: Automation[]; pagination: Pagination }>('/automations?limit=20');
  const rows = await Promise.all(
    page.automations.map(async ({ id }) => {
      const [automation, runs] = await Promise.all([
        api<Automation>(`/automations/${id}`),
        api<{ runs: Run[] }>(`/automations/${id}/runs?limit=${streakWindow}`),
      ]);
      return { automation, failuresInRow: failuresInRow(runs.runs) };
    }),
  );
  return { rows, pagination: page.pagination };
}

const createCommand = `neoflow apply   # automations as code: docs/automations-as-code.md
# or, with curl:
curl -X POST -H "X-API-Key: $KEY" -H 'Content-Type: application/json' \\
  http://127.0.0.1:8080/v1/automations -d '{"name":"every minute",
  "trigger":{"type":"schedule","cron":"* * * * *"},
  "action":{"type":"function","functionId":"func_…"}}'`;

/** What an automation that sends may still spend: today's limit first, else its total's. */
function BudgetLeft({ automation }: { automation: Automation }) {
  const { gas } = automation;
  if (!gas) return <>sends nothing</>;
  if (gas.leftToday !== null) return <Gas decimal={gas.leftToday} />;
  if (gas.leftTotal !== null) return <Gas decimal={gas.leftTotal} />;
  return <>no limit</>;
}

export function AutomationsPage() {
  const { loaded } = useLoad(loadRows, [], 15_000);
  return (
    <section>
      <h1>Automations</h1>
      <Loading loaded={loaded}>
        {({ rows, pagination }) =>
          rows.length === 0 ? (
            <Empty title="No automations yet" command={createCommand}>
              An automation runs an action (a function, a contract call, a webhook) when its trigger fires. Create the
              first one:
            </Empty>
          ) : (
            <>
              <Table label="Automations">
                <thead>
                  <tr>
                    <th scope="col">Name</th>
                    <th scope="col">Status</th>
                    <th scope="col">Trigger</th>
                    <th scope="col">Network</th>
                    <th scope="col">Next fire</th>
                    <th scope="col">Failures in a row</th>
                    <th scope="col">Budget left</th>
                  </tr>
                </thead>
                <tbody>
                  {rows.map(({ automation, failuresInRow: failures }) => (
                    <tr key={automation.id}>
                      <td>
                        <a href={href.automation(automation.id)}>{automation.name}</a>
                      </td>
                      <td>
                        <Status status={automation.status} />
                      </td>
                      <td>{triggerInWords(automation.trigger)}</td>
                      <td>{automation.network}</td>
                      <td>
                        <Time iso={automation.executionStats?.nextExecution} />
                      </td>
                      <td>{failures >= streakWindow ? `${streakWindow}+` : failures}</td>
                      <td>
                        <BudgetLeft automation={automation} />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </Table>
              {pagination.hasMore && (
                <p>
                  The first {rows.length} of {pagination.total}, newest first.
                </p>
              )}
            </>
          )
        }
      </Loading>
    </section>
  );
}
