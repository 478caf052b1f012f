import { api } from '../api.ts';
import { Loading, Table, Time } from '../components.tsx';
import { useLoad, unavailable } from '../load.ts';
import type { AuditEvent } from '../types.ts';

/** A field of an event that may be a name or an object of names, as text. */
function named(value: unknown, ...fields: string[]): string {
  if (typeof value === 'string') return value;
  if (value && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    return fields
      .map((field) => record[field])
      .filter((part) => typeof part === 'string' && part !== '')
      .join(' ');
  }
  return '';
}

export function AuditPage() {
  const { loaded } = useLoad(async () => {
    const page = await api<{ events?: AuditEvent[]; data?: AuditEvent[] }>('/audit-events?limit=100');
    return page.events ?? page.data ?? [];
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
                      <Time iso={event.at ?? event.createdAt ?? (event.time as string | undefined)} />
                    </td>
                    <td>{named(event.actor, 'keyName', 'keyId', 'role') || named(event.actorKeyId)}</td>
                    <td>{event.action}</td>
                    <td>
                      {named(event.resource, 'type', 'id') || named(event.resourceType) + ' ' + named(event.resourceId)}
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
