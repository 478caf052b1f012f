/**
 * A value as its leaves by path (`trigger.cron`, `notify.0.on.1`): objects and non-empty lists
 * are walked, everything else (empty ones included) is a leaf, but undefined, which is no value. A plan compares two of these.
 */
export function flatten(value: unknown, prefix = '', leaves = new Map<string, unknown>()): Map<string, unknown> {
  const walk = (key: string, item: unknown) => flatten(item, prefix ? `${prefix}.${key}` : key, leaves);
  if (Array.isArray(value) && value.length > 0) value.forEach((item, index) => walk(String(index), item));
  else if (typeof value === 'object' && value !== null && Object.keys(value).length > 0)
    for (const [key, item] of Object.entries(value)) walk(key, item);
  else if (value !== undefined) leaves.set(prefix, value);
  return leaves;
}
