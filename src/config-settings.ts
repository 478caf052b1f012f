import { z } from 'zod';

/**
 * How config.ts says each setting once: a tree of settings, each the variable it is read from and
 * that variable's schema, from which come both the environment's schema and the configuration's
 * nested shape.
 */

/** A setting: the variable of the environment it is read from, and that variable's schema. */
class Setting<V extends string, S extends z.ZodType> {
  readonly variable: V;
  readonly schema: S;

  constructor(variable: V, schema: S) {
    this.variable = variable;
    this.schema = schema;
  }
}
export const read = <const V extends string, S extends z.ZodType>(variable: V, schema: S) =>
  new Setting(variable, schema);

interface Settings {
  [key: string]: Setting<string, z.ZodType> | Settings;
}
type SettingOf<T> = T extends Setting<string, z.ZodType> ? T : { [K in keyof T]: SettingOf<T[K]> }[keyof T];
/** The schema of the environment: each setting's variable, by its schema. */
type EnvironmentShape<T> = {
  [S in SettingOf<T> as S extends Setting<infer V, z.ZodType> ? V : never]: S extends Setting<string, infer Z>
    ? Z
    : never;
};
/** The configuration: the settings' own shape, each setting replaced by its variable's value. */
type Nested<T> = T extends Setting<string, infer S> ? z.output<S> : { [K in keyof T]: Nested<T[K]> };

const settingsIn = (tree: Settings): Setting<string, z.ZodType>[] =>
  Object.values(tree).flatMap((node) => (node instanceof Setting ? [node] : settingsIn(node)));

export const environmentShape = <T extends Settings>(tree: T) =>
  Object.fromEntries(settingsIn(tree).map(({ variable, schema }) => [variable, schema])) as EnvironmentShape<T>;

export function nested<T extends Settings>(tree: T, env: Record<string, unknown>): Nested<T> {
  const entries = Object.entries(tree).map(([key, node]) => [
    key,
    node instanceof Setting ? env[node.variable] : nested(node, env),
  ]);
  return Object.fromEntries(entries) as Nested<T>;
}

/** An optional text setting: blank reads as unset. */
export const optionalText = z
  .string()
  .trim()
  .optional()
  .transform((value) => (value === '' ? undefined : value));

/** A comma-separated setting's items, trimmed. */
export const listOf = (value: string) => value.split(',').map((item) => item.trim());
