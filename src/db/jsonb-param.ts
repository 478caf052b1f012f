import { storableJson } from './storable.ts';

/**
 * A value as the parameter of a `jsonb` column in a plain statement, made storable (storable.ts):
 * SQL null stays null, not `'null'`.
 */
export const jsonbParam = (value: unknown): string | null => (value === null ? null : storableJson(value));
