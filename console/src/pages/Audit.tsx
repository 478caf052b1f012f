import { api } from '../api.ts';
import { Loading, Table, Time } from '../components.tsx';
import { useLoad, unavailable } from '../load.ts';
import type { AuditEvent } from '../types.ts';

/** Who acted, in words: a key by its name (or id) and role, else what acted (the CLI, Neoflow). */
function actorOf(actor: AuditEvent['actor']): string {
  if (actor.type !== 'key') return actor.type;
  return [actor.name ?? actor.keyId, actor.role].filter(Boolean).join(' · ');
}

export function AuditPage() {
  const { loaded } = useLoad(async () => {
    const { events } = await api<{ events: AuditEvent[] }>('/audit-events?limit=100');
    return events;
  }, []);
  if (unavailable(loaded)) return <p>The audit log is not available to this session.</p>;
  return (
    <section>
      <h1>Audit log</h1>
      <Loading loaded={loaded}>
        {(events) =>
          events.length === 0 ? (
            <p>Nothing recorded yet.</p>
          ) : (
            <Table label="Audit events, newest first">
              <thead>
                <tr>
                  <th scope="col">When</th>
                  <th scope="col">Who</th>
                  <th scope="col">Action</th>
                  <th scope="col">Resource</th>
                </tr>
              </thead>
              <tbody>
                {events.map((event) => (
                  <tr key={event.id}>
                    <td>
                      <Time iso={event.occurredAt} />
                    </td>
                    <td>{actorOf(event.actor)}</td>
                    <td>{event.action}</td>
                    <td>
                      {event.resource.type} {event.resource.id}
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
