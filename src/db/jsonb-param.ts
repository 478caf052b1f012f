/** A value as the parameter of a `jsonb` column in a plain statement: SQL null stays null, not `'null'`. */
export const jsonbParam = (value: unknown): string | null => (value === null ? null : JSON.stringify(value));
