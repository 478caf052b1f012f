import { api } from '../api.ts';
import { Gas, Hash, Loading, Table } from '../components.tsx';
import { useLoad } from '../load.ts';
import type { Signer } from '../types.ts';

/** Each signer with its GAS and spend on every configured network (its details answer them). */
async function loadSigners(): Promise<Signer[]> {
  const { signers } = await api<{ signers: Signer[] }>('/signers?limit=100');
  return Promise.all(signers.map(({ id }) => api<Signer>(`/signers/${id}`)));
}

export function SignersPage() {
  const { loaded } = useLoad(loadSigners, [], 30_000);
  return (
    <section>
      <h1>Signers</h1>
      <p>The keys that sign your automations' transactions, with their GAS and what they spent on each network.</p>
      <Loading loaded={loaded}>
        {(signers) => (
          <Table label="Signers by network">
            <thead>
              <tr>
                <th scope="col">Signer</th>
                <th scope="col">Address</th>
                <th scope="col">Network</th>
                <th scope="col">Balance</th>
                <th scope="col">Spent today</th>
                <th scope="col">Spent in all</th>
                <th scope="col">Reserved</th>
              </tr>
            </thead>
            <tbody>
              {signers.flatMap((signer) =>
                (signer.networks ?? []).map((network) => (
                  <tr key={`${signer.id}-${network.name}`}>
                    <td>
                      {signer.name} <small>({signer.type})</small>
                    </td>
                    <td>
                      <Hash value={signer.address} />
                    </td>
                    <td>{network.name}</td>
                    <td>{network.gasBalance === null ? 'no answer' : <Gas decimal={network.gasBalance} />}</td>
                    <td>
                      <Gas decimal={network.spend.today} />
                    </td>
                    <td>
                      <Gas decimal={network.spend.total} />
                    </td>
                    <td>
                      <Gas decimal={network.spend.reserved} />
                    </td>
                  </tr>
                )),
              )}
            </tbody>
          </Table>
        )}
      </Loading>
    </section>
  );
}
