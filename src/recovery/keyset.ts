/**
 * Where a pass of the reconciler stands in a table it pages through: the last row seen, by the
 * order of an index (start time as PostgreSQL prints it, exact to the microsecond, then id).
 * Every row gets its turn, whether or not the rows before it could be healed.
 */
export interface Keyset {
  at: string;
  id: string;
}

/** A page of rows the reconciler went through, and where the next page starts (null: the last page). */
export interface SweptPage<T> {
  /** What the workflow starts: rows whose workflow never started. */
  unstarted: T[];
  /** Rows ended because their workflow had closed. */
  finished: number;
  next: Keyset | null;
}

/** Rows a page holds. */
export const pageSize = 100;

/** Temporal calls in flight at once while a page is checked. */
export const callsInFlight = 8;

export function nextKeyset(rows: { cursor_at: string; id: string }[]): Keyset | null {
  const last = rows.at(-1);
  return rows.length < pageSize || !last ? null : { at: last.cursor_at, id: last.id };
}
