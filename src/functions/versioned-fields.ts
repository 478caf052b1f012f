import type { FunctionDef } from './function.entity.ts';

/**
 * What a function runs besides its code: a change of any of these (or of the code) makes a new
 * version, which keeps them as they were (`settings` of function_versions). A field added here is
 * versioned from then on; versions made before it lack it and read as `addedDefaults` says.
 */
export const versionedSettings = ['runtime', 'timeout', 'environment', 'secrets', 'allowedHosts'] as const;

export type VersionSettings = Pick<FunctionDef, (typeof versionedSettings)[number]>;

/** What a field added to `versionedSettings` after versions existed was before it: its column's default. */
const addedDefaults: Partial<VersionSettings> = { allowedHosts: [] };

/** A version's settings as stored, completed with the fields added since it was made. */
export const storedSettings = (settings: Partial<VersionSettings>): VersionSettings =>
  ({ ...addedDefaults, ...settings }) as VersionSettings;

/** Everything a version fixes: the code and its settings. */
export type Versioned = VersionSettings & { code: string };

/** The settings of the function as it stands. */
export function settingsOf(fn: VersionSettings): VersionSettings {
  return Object.fromEntries(versionedSettings.map((field) => [field, fn[field]])) as VersionSettings;
}

/** Whether `change` (an update's fields) alters what `fn` runs. */
export function changesVersion(fn: Versioned, change: Partial<Versioned>): boolean {
  return (['code', ...versionedSettings] as const).some(
    (field) => change[field] !== undefined && !sameValue(change[field], fn[field]),
  );
}

/** Settings are JSON: strings, numbers, string arrays, string records. Order matters in arrays. */
const sameValue = (a: unknown, b: unknown) => JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>)
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([key, inner]) => [key, canonical(inner)]),
    );
  }
  return value;
}
